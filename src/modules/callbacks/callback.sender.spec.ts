import type { Job } from 'bull';
import { describe, expect, it, vi } from 'vitest';
import type { AppConfig } from '../../config/config.js';
import type { AccountsService } from '../accounts/accounts.service.js';
import { CallbackMetrics } from './callbacks.metrics.js';
import type { CallbackOutbox } from './callback.outbox.js';
import { CallbackSender, type QueuedCallback } from './callback.sender.js';
import type { CallbackStore } from './callback.store.js';
import type { TestCallbackCap } from './test-callback-cap.service.js';
import type { WebhookAttempts } from './webhooks/webhook-attempts.service.js';
import { CacheStats } from '../metrics/cache-stats.service.js';
import { MetricsService } from '../metrics/metrics.service.js';

/**
 * An event's copies taken without an attempt are marked taken on the delivery log, so the
 * recovery sweep does not queue them again; the job's outbox row goes only when it has one.
 */
function sender() {
  const outbox = { finished: vi.fn(), queueLater: vi.fn(async () => undefined) };
  const webhooks = {
    // No secret: the endpoint is disabled (its copy found not due), nothing is posted.
    secretOf: vi.fn(async () => undefined),
    attempted: vi.fn(async () => undefined),
    taken: vi.fn(async () => undefined),
  };
  const testCap = {
    exhausted: vi.fn(async (_account: string, url: string) => url.endsWith('/capped')),
    succeeded: vi.fn(async () => undefined),
    failed: vi.fn(async () => undefined),
  };
  const config = {
    callbackTargetConcurrency: 4,
    callbackCircuitOpenMs: 60_000,
    callbackMaxHoldMs: 3600_000,
    callbackBackoffBaseMs: 1000,
  } as unknown as AppConfig;
  const s = new CallbackSender(
    config,
    {} as AccountsService,
    {} as CallbackStore,
    {} as never,
    outbox as unknown as CallbackOutbox,
    new CallbackMetrics(new MetricsService(new CacheStats())),
    testCap as unknown as TestCallbackCap,
    webhooks as unknown as WebhookAttempts,
  );
  return { s, outbox, webhooks };
}

const job = (loggedOnly: boolean): Job<QueuedCallback> =>
  ({
    attemptsMade: 0,
    opts: { attempts: 10 },
    data: {
      eventId: 'job-1',
      url: 'https://hooks.example/capped',
      accountId: '7',
      messageRowId: '42',
      eventType: 'webhook',
      webhookId: 'w1',
      copies: [
        { deliveryId: 'd1', webhookId: 'w1', url: 'https://hooks.example/capped' },
        { deliveryId: 'd2', webhookId: 'w2', url: 'https://hooks.example/open' },
      ],
      ...(loggedOnly ? { loggedOnly: true as const } : {}),
      payload: { event_id: 'e1', type: 'message.sent', occurred_at: '', data: {}, test: true },
    },
  }) as unknown as Job<QueuedCallback>;

describe("CallbackSender: an event's copies", () => {
  it('marks a copy dropped unattempted as taken, and leaves a job recorded by the log without an outbox row to clear', async () => {
    const { s, outbox, webhooks } = sender();
    await s.handle(job(true));
    expect(webhooks.taken).toHaveBeenCalledWith(['d1']);
    expect(outbox.queueLater).not.toHaveBeenCalled();
    expect(outbox.finished).not.toHaveBeenCalled();
  });

  it("clears the job's outbox row when it has one (kept there after its queue add failed)", async () => {
    const { s, outbox, webhooks } = sender();
    await s.handle(job(false));
    expect(webhooks.taken).toHaveBeenCalledWith(['d1']);
    expect(outbox.finished).toHaveBeenCalledWith('job-1');
  });
});
