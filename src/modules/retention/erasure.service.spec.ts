import { describe, expect, it } from 'vitest';
import type { AppConfig } from '../../config/config.js';
import { AppException } from '../../platform/errors/app.exception.js';
import type { ShortLinkStore } from '../links/short-link.store.js';
import { ERASURE_LIMITS, ErasureService } from './erasure.service.js';
import type { ErasureStore } from './erasure.store.js';
import type { RetentionStore } from './retention.store.js';

/**
 * An erasure service whose first statement (messagesTo) waits until released, so that what
 * runs at once can be seen: `started` lists the accounts whose erasure has begun.
 */
function service() {
  const started: string[] = [];
  const gates: Array<() => void> = [];
  const store = {
    messagesTo: (scope: { accountId: string }) => {
      started.push(scope.accountId);
      return new Promise((resolve) =>
        gates.push(() => resolve({ ids: [], requestIds: [], pending: 0, pendingIds: [] })),
      );
    },
    erase: async () => ({ messages: 0, send_requests: 0 }),
    eraseInbound: async () => [],
    eraseVerifications: async () => ({ verifications: 0, pending: 0 }),
    eraseOutbox: async () => 0,
    eraseWebhookDeliveries: async () => 0,
    eraseKeptAnswers: async () => 0,
    eraseRequestLogs: async () => 0,
  } as unknown as ErasureStore;
  const config = { retention: {}, authThrottle: { refusalDelayMs: 0 } } as unknown as AppConfig;
  const links = { removeOfMessages: async () => 0 } as unknown as ShortLinkStore;
  const erasure = new ErasureService(store, {} as RetentionStore, config, links);
  const settle = () => new Promise((r) => setTimeout(r, 0));
  const releaseOne = async () => {
    gates.shift()!();
    await settle();
  };
  return { erasure, started, releaseOne, settle };
}

describe('ErasureService.eraseInTurn', () => {
  it("runs one erasure of a tenant at a time, another tenant's beside it, and refuses the tenant's eleventh with 429", async () => {
    const { erasure, started, releaseOne, settle } = service();
    const erase = (tenant: string, account = tenant) =>
      erasure.eraseInTurn(tenant, { accountId: account }, '260971000001');
    // A parent's and its sub-account's erasures share the parent's turn.
    const mine = [erase('1'), erase('1', '2'), ...Array.from({ length: 8 }, () => erase('1'))];
    await settle();
    expect(started).toEqual(['1']);
    const refused = await erase('1').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppException);
    expect((refused as AppException).code).toBe('RATE_LIMITED');
    expect((refused as AppException).headers).toEqual({ 'Retry-After': '1' });
    expect(started).toEqual(['1']);

    // Another tenant is not behind the first one's line.
    const theirs = erase('9');
    await settle();
    expect(started).toEqual(['1', '9']);

    // The tenant's next starts only when its running one ends, the sub-account's first.
    await releaseOne();
    expect(started).toEqual(['1', '9', '2']);
    for (let i = 0; i < 10; i++) await releaseOne();
    const done = await Promise.all([...mine, theirs]);
    expect(done.map((r) => r.recipient)).toEqual(Array(11).fill('260971000001'));
    expect(started.length).toBe(11);
    expect(ERASURE_LIMITS.perLane).toBe(10);
  });
});
