import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable } from '@nestjs/common';
import type { Job, Queue } from 'bull';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { AccountsService } from '../accounts/accounts.service.js';
import {
  CALLBACK_ATTEMPTS,
  CALLBACK_COMPLETED_KEPT,
  CALLBACK_FAILED_KEPT,
  CALLBACK_FAILURES_TO_OPEN,
  jitteredBackoff,
} from '../delivery/retry-policy.js';
import { CALLBACK_QUEUE, type CallbackJob, type WebhookCopy } from './callback-job.js';
import { CallbackMetrics } from './callbacks.metrics.js';
import { CallbackOutbox } from './callback.outbox.js';
import { CallbackStore } from './callback.store.js';
import { RefusedTarget, safePost } from './safe-post.js';
import { signCallback } from './signature.js';
import { circuitOf, TargetGate, targetOfCircuit } from './target-gate.js';
import { TestCallbackCap } from './test-callback-cap.service.js';
import { WebhookAttempts } from './webhooks/webhook-attempts.service.js';

export class CallbackFailed extends Error {}

/**
 * A callback event put back on the queue while its target was busy: it keeps its attempt count,
 * and, once an open circuit has held it, when that first happened.
 */
export type QueuedCallback = CallbackJob & { priorAttempts?: number; parks?: number; heldSince?: number };

/** An event to be queued again a moment later (CallbackOutbox.queueLater). */
export interface DeferredCallback {
  job: QueuedCallback;
  delayMs: number;
}

type AttemptResult =
  /** `skipped`: done with unattempted (a test event dropped, or held too long). */
  | { kind: 'done'; skipped?: true }
  | { kind: 'park'; delayMs: number; heldSince?: number }
  | { kind: 'failed'; failure: string };

const DONE: AttemptResult = { kind: 'done' };
const SKIPPED: AttemptResult = { kind: 'done', skipped: true };

/**
 * Delivers one signed callback and records the attempt in the notification
 * database. A non-2xx answer or no answer throws, so Bull retries with jittered exponential
 * backoff; a target refused by the SSRF guard is recorded and not retried.
 *
 * Targets are isolated from one another, per account (TargetGate, keyed by account and
 * target): while an account's target already has its share of calls in flight, its next event
 * is put back on the queue a moment later, spending no attempt, so a slow target cannot occupy
 * every worker. While the circuit of an account's target is open (it kept failing), its events
 * are held the same way, spending no attempt and writing no row, and one probe at a time tests
 * the target once the circuit's time is up. Another account's events to the same receiver (a
 * shared one such as an integration platform) have a circuit of their own, so one tenant's
 * failing endpoint cannot stop another's callbacks.
 */
@Injectable()
export class CallbackSender {
  private readonly gate: TargetGate;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly accounts: AccountsService,
    private readonly store: CallbackStore,
    @InjectQueue(CALLBACK_QUEUE) private readonly queue: Queue<QueuedCallback>,
    private readonly outbox: CallbackOutbox,
    @Inject(CallbackMetrics) private readonly metrics: CallbackMetrics,
    private readonly testCap: TestCallbackCap,
    private readonly webhooks: WebhookAttempts,
  ) {
    this.gate = new TargetGate({
      perTarget: config.callbackTargetConcurrency,
      failuresToOpen: CALLBACK_FAILURES_TO_OPEN,
      openMs: config.callbackCircuitOpenMs,
    });
    metrics.watchFailingTargets(() => [...new Set(this.gate.failing().map(targetOfCircuit))]);
  }

  async handle(job: Job<QueuedCallback>): Promise<void> {
    if (job.data.copies) return this.handleCopies(job.data, job.data.copies);
    const result = await this.attempt(job.data, job.attemptsMade, job.opts.attempts ?? 1);
    if (result.kind === 'park') return this.park(job, result.delayMs, result.heldSince);
    if (result.kind === 'failed') throw new CallbackFailed(`callback ${job.data.eventId}: ${result.failure}`);
  }

  /**
   * An event's copies for its endpoints: each attempted once, side by side. A copy that needs
   * another attempt (failed, or its target busy or held) goes on as a job of its own, kept in
   * the outbox under its copy's id; then the copies not attempted are marked taken on the
   * delivery log (an attempt marks its own), and this job's outbox row, when it has one, goes.
   */
  private async handleCopies(event: QueuedCallback, copies: WebhookCopy[]): Promise<void> {
    const later: DeferredCallback[] = [];
    const unattempted: string[] = [];
    await Promise.all(
      copies.map(async (c) => {
        const copy: QueuedCallback = {
          ...event,
          eventId: c.deliveryId,
          url: c.url,
          webhookId: c.webhookId,
          copies: undefined,
        };
        const result = await this.attempt(copy, 0, CALLBACK_ATTEMPTS, false);
        if (result.kind === 'park' || (result.kind === 'done' && result.skipped))
          unattempted.push(c.deliveryId);
        if (result.kind === 'park')
          later.push({
            job: {
              ...copy,
              parks: 1,
              ...(result.heldSince === undefined ? {} : { heldSince: result.heldSince }),
            },
            delayMs: Math.round(result.delayMs * (0.5 + Math.random())),
          });
        if (result.kind === 'failed')
          later.push({ job: { ...copy, priorAttempts: 1 }, delayMs: this.backoff(1) });
      }),
    );
    if (later.length) await this.outbox.queueLater(later);
    await this.webhooks.taken(unattempted);
    if (!event.loggedOnly) this.outbox.finished(event.eventId);
  }

  /**
   * One attempt at an event: done with (delivered, refused, dropped, or out of attempts), to be
   * parked (its target busy, or held by an open circuit), or failed (to be tried again).
   * `ownRow`: the event has an outbox row of its own, to go once it is done with.
   */
  private async attempt(
    data: QueuedCallback,
    attemptsMade: number,
    attempts: number,
    ownRow = true,
  ): Promise<AttemptResult> {
    const { url, accountId, eventId } = data;
    const finished = () => {
      if (ownRow) this.outbox.finished(eventId);
    };
    const attempt = (data.priorAttempts ?? 0) + attemptsMade + 1;
    const last = attemptsMade + 1 >= attempts;
    // A test event to a failing target is dropped rather than held or retried (TestCallbackCap).
    const test = data.payload.test === true;
    if (test && (await this.testCap.exhausted(accountId, url))) return this.dropTest(finished);
    // An account's test events have a circuit of their own: their failures never hold live events.
    const admission = this.gate.enter(circuitOf(test ? `${accountId}/test` : accountId, url));
    if (!admission.ok && admission.reason === 'open' && test) return this.dropTest(finished);
    if (!admission.ok && admission.reason === 'open') {
      // Held, not attempted: an open circuit spends none of the event's attempts, for
      // CALLBACK_MAX_HOLD_MS at most (a target dead for good would hold its events for ever).
      const heldSince = data.heldSince ?? Date.now();
      if (Date.now() - heldSince >= this.config.callbackMaxHoldMs) {
        this.metrics.attempt('hold_expired');
        finished();
        return SKIPPED;
      }
      this.metrics.held();
      return { kind: 'park', delayMs: admission.retryInMs, heldSince };
    }
    if (!admission.ok) return { kind: 'park', delayMs: admission.retryInMs, heldSince: data.heldSince };
    let failure: string | null = 'not attempted';
    try {
      failure = await this.deliver(data, attempt, last, admission.release);
    } finally {
      admission.release(failure === null); // a no-op once deliver has released it
    }
    if (failure === null || last) finished();
    if (test && failure === null) await this.testCap.succeeded(accountId, url);
    if (test && failure !== null) await this.testCap.failed(accountId, url);
    return failure === null ? DONE : { kind: 'failed', failure };
  }

  /** The delay before an event's next attempt after `attemptsMade`, as the queue's backoff reckons it. */
  private backoff(attemptsMade: number): number {
    return jitteredBackoff(this.config.callbackBackoffBaseMs)(attemptsMade);
  }

  private dropTest(finished: () => void): AttemptResult {
    this.metrics.attempt('test_dropped');
    finished();
    return SKIPPED;
  }

  /** Returns why the attempt failed and is to be retried, or null when it is done with. */
  private async deliver(
    data: QueuedCallback,
    attempt: number,
    last: boolean,
    release: (succeeded: boolean, tookMs?: number) => void,
  ): Promise<string | null> {
    const { url, accountId, payload, messageRowId, eventId, eventType } = data;
    // A webhook event is signed with its endpoint's own secret (none: the endpoint is gone or disabled).
    const secret =
      eventType === 'webhook'
        ? await this.webhooks.secretOf(data)
        : await this.accounts.callbackSecretOf(accountId);
    if (secret === undefined) return null;
    const body = JSON.stringify(payload);
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'X-Signature-Timestamp': String(timestamp),
      'X-Signature': signCallback(secret, timestamp, body),
      'X-Event-Id': eventId,
    };
    const started = performance.now();
    let outcome: 'delivered' | 'http_error' | 'network_error' | 'refused';
    let httpStatus: number | null = null;
    let error: string | null = null;
    try {
      const res = await safePost(url, body, headers, {
        timeoutMs: this.config.callbackTimeoutMs,
        allowPrivate: this.config.callbackAllowPrivateNetworks,
        httpsOnly: this.config.callbackHttpsOnly,
      });
      httpStatus = res.status;
      outcome = res.status >= 200 && res.status < 300 ? 'delivered' : 'http_error';
      if (outcome === 'http_error') error = `HTTP ${res.status}`;
    } catch (err) {
      outcome = err instanceof RefusedTarget ? 'refused' : 'network_error';
      error = (err as Error).message.slice(0, 255);
    }
    const tookMs = Math.round(performance.now() - started);
    const failure = outcome === 'http_error' || outcome === 'network_error' ? (error ?? outcome) : null;
    // The target's slot is held for its own answer only, and judged by that answer's time.
    release(failure === null, tookMs);
    await this.store.recordAttempt({
      eventId,
      eventType: eventType ?? 'message',
      messageRowId,
      accountId,
      url,
      attempt,
      outcome,
      httpStatus,
      error,
      durationMs: tookMs,
    });
    this.metrics.attempt(outcome);
    if (eventType === 'webhook')
      await this.webhooks.attempted(data, {
        httpStatus,
        error,
        delivered: outcome === 'delivered',
        last: last || outcome === 'refused',
        retryInMs: this.config.callbackBackoffBaseMs * 2 ** (attempt - 1),
      });
    return failure;
  }

  /**
   * Puts the event back on the queue, due a moment later, under a new job id; this job then
   * completes. The attempts already spent travel with it, so the total and the backoff
   * schedule stay those of the first job.
   */
  private async park(
    job: Job<QueuedCallback>,
    delayMs: number,
    heldSince = job.data.heldSince,
  ): Promise<void> {
    const prior = (job.data.priorAttempts ?? 0) + job.attemptsMade;
    const parks = (job.data.parks ?? 0) + 1;
    await this.queue.add(
      'deliver',
      { ...job.data, priorAttempts: prior, parks, ...(heldSince === undefined ? {} : { heldSince }) },
      {
        jobId: `${job.data.eventId}~${parks}`,
        delay: Math.round(delayMs * (0.5 + Math.random())),
        attempts: Math.max(1, (job.opts.attempts ?? 1) - job.attemptsMade),
        backoff: { type: 'jittered', options: { offset: prior } },
        removeOnComplete: job.opts.removeOnComplete ?? CALLBACK_COMPLETED_KEPT,
        removeOnFail: job.opts.removeOnFail ?? CALLBACK_FAILED_KEPT,
      },
    );
  }
}
