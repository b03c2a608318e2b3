import type { AppConfig } from '../../config/config.js';

/*
 * Every attempt, backoff and lock number of the queues, in one place: how often a message is
 * tried and how long apart, how long a job's lock lives, how often a state change retries a lock
 * conflict, and the same for callbacks.
 */

// ---------------------------------------------------------------------------------------------
// Dispatch jobs (sms, email, chat queues)

/** Tries per dispatch job before its waiting messages end FAILED (and are refunded). */
export const DISPATCH_ATTEMPTS = 8;
/** The producer's exponential base delay: 2 s, 6 s, 14 s, … about 8 minutes over 8 attempts. */
export const DISPATCH_BACKOFF_MS = 2000;
/** A configuration failure waits 1 min, 2, 4, 8, then 15 min between tries: about an hour over 8 attempts. */
export const CONFIGURATION_BACKOFF_MS = 60_000;
export const CONFIGURATION_BACKOFF_MAX_MS = 15 * 60_000;
/** Failed dispatch jobs kept in Redis for inspection. */
export const DISPATCH_FAILED_KEPT = 1000;
/**
 * The last completed dispatch jobs kept in Redis, so the queue dashboard shows recent work; older
 * ones are removed as new ones complete. (A request's chunk queued again under the same job id
 * by the recovery sweep removes a finished job of that id first.)
 */
export const DISPATCH_COMPLETED_KEPT = 1000;
/**
 * How long a worker keeps trying to record what it handed over (the state change) before it
 * gives up on the job: long enough to ride out a MySQL restart or failover; the job's lock is
 * renewed meanwhile (in Redis). Between tries it waits at most RECORD_BACKOFF_MAX_MS.
 */
export const RECORD_RETRY_MS = 10 * 60_000;
export const RECORD_BACKOFF_MAX_MS = 5000;

/** A test request's simulated provider error is retried at this fixed pace: it ends FAILED within seconds. */
export const TEST_BACKOFF_MS = 1000;

/** Thrown by the dispatcher when a test request's messages were kept back (see transports/test-outcomes.ts). */
export class TestDispatchError extends Error {
  override readonly name = 'TestDispatchError';
}

/** Thrown by the dispatcher when what kept messages back cannot heal until the configuration changes. */
export class ConfigurationDispatchError extends Error {
  override readonly name = 'ConfigurationDispatchError';
}

/**
 * Bull's backoff for the dispatch queues, registered under the name the producer's jobs ask for
 * (`exponential`): the same curve as Bull's own for passing failures, and a long one for
 * configuration failures, so an operator has time to fix the setting before the messages run
 * out of attempts (then they end FAILED and are refunded, as any other).
 */
export function dispatchBackoff(attemptsMade: number, err?: Error): number {
  if (err?.name === 'TestDispatchError') return TEST_BACKOFF_MS;
  if (err?.name === 'ConfigurationDispatchError') {
    return Math.min(
      CONFIGURATION_BACKOFF_MS * 2 ** Math.max(0, attemptsMade - 1),
      CONFIGURATION_BACKOFF_MAX_MS,
    );
  }
  return Math.round((2 ** attemptsMade - 1) * DISPATCH_BACKOFF_MS);
}

// ---------------------------------------------------------------------------------------------
// Job locks (every queue)

/**
 * A job whose worker died goes back to the queue within QUEUE_LOCK_MS. Bull needs two stalled
 * checks to move a job (the first marks the active jobs, the second moves those whose lock has
 * lapsed), so the worst case is the lock's life plus two check intervals: with the check every
 * lockMs/6 and the lock living 2/3 of lockMs, that is lockMs. (With the check as seldom as the
 * lock's life, takeover took up to three times QUEUE_LOCK_MS.) The lock is renewed four times
 * per life, so a worker slowed by load does not lose a job it is still working on.
 */
export function lockSettings(c: Pick<AppConfig, 'queueLockMs'>) {
  const lockDuration = Math.floor((c.queueLockMs * 2) / 3);
  return {
    lockDuration,
    lockRenewTime: Math.round(lockDuration / 4),
    stalledInterval: Math.max(250, Math.floor(c.queueLockMs / 6)),
    maxStalledCount: 3,
  };
}

// ---------------------------------------------------------------------------------------------
// Row locks in MySQL (state changes)

/**
 * How long a hand-over claim keeps a cancel or a validity expiry away from a message. A worker
 * gives its claims up when a slice comes back with messages to retry; one that dies mid-slice
 * leaves them to lapse. Longer than a slice's hand-over and record can take (RECORD_RETRY_MS).
 */
export const CLAIM_LEASE_MS = 15 * 60_000;

/** MySQL's "lock wait timeout" and "deadlock" errors: routine between concurrent batches, retried. */
export const ER_LOCK_WAIT_TIMEOUT = 1205;
export const ER_LOCK_DEADLOCK = 1213;
/** Tries of one batch of state changes (the lifecycle service) when it meets a lock conflict. */
export const TRANSITION_LOCK_TRIES = 3;
/** Tries of one batch of delivery reports when it meets a lock conflict. */
export const REPORT_LOCK_TRIES = 5;

export function isLockConflict(err: unknown): boolean {
  const errno = (err as { errno?: number } | null)?.errno;
  return errno === ER_LOCK_DEADLOCK || errno === ER_LOCK_WAIT_TIMEOUT;
}

// ---------------------------------------------------------------------------------------------
// Callback jobs

/** Tries per callback event (parks while its target is busy do not count). */
export const CALLBACK_ATTEMPTS = 10;
/** Failed callback jobs kept in Redis for inspection. */
export const CALLBACK_FAILED_KEPT = 5000;
/** The last completed callback jobs kept in Redis, for the queue dashboard (older ones removed as new ones complete). */
export const CALLBACK_COMPLETED_KEPT = 1000;
/** Failures in a row after which a target's callbacks stop being sent until a probe succeeds. */
export const CALLBACK_FAILURES_TO_OPEN = 5;

/**
 * Exponential backoff with jitter: base × 2^(n-1), scaled by a random factor in [0.75, 1.25).
 * A parked event's job counts from the attempts spent before it (`offset`).
 */
export function jitteredBackoff(baseMs: number) {
  return (attemptsMade: number, _err?: unknown, options?: { offset?: number } | null): number =>
    Math.round(
      baseMs * 2 ** Math.max(0, attemptsMade + (options?.offset ?? 0) - 1) * (0.75 + Math.random() * 0.5),
    );
}
