/** The producer's exponential base delay: 2 s, 6 s, 14 s, … about 8 minutes over 8 attempts. */
export const DISPATCH_BACKOFF_MS = 2000;
/** A configuration failure waits 1 min, 2, 4, 8, then 15 min between tries: about an hour over 8 attempts. */
export const CONFIGURATION_BACKOFF_MS = 60_000;
export const CONFIGURATION_BACKOFF_MAX_MS = 15 * 60_000;

/** Thrown by the dispatcher when what kept messages back cannot heal until the configuration changes. */
export class ConfigurationDispatchError extends Error {
  override readonly name = 'ConfigurationDispatchError';
}

/** A test request's simulated provider error is retried at this fixed pace: it ends FAILED within seconds. */
export const TEST_BACKOFF_MS = 1000;

/** Thrown by the dispatcher when a test request's messages were kept back (see test-outcomes.ts). */
export class TestDispatchError extends Error {
  override readonly name = 'TestDispatchError';
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
