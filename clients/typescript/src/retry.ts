import { BulkMessagingError, retryAfterSeconds } from './errors.js';

export interface RetryOptions {
  /** Attempts after the first one (default 3). */
  retries: number;
  /** First wait after a 503, an answer that never came or a request still in progress, doubled each time. */
  baseDelayMs: number;
  /** Longest single wait: a Retry-After beyond it is not waited for, the 429 is thrown at once. */
  maxDelayMs: number;
  /** How long one attempt may take before it counts as an answer that never came. */
  timeoutMs: number;
}

export const DEFAULT_RETRY: RetryOptions = {
  retries: 3,
  baseDelayMs: 250,
  maxDelayMs: 30_000,
  timeoutMs: 30_000,
};

type Fetch = (request: Request) => Promise<Response>;

/** Methods that change nothing, or the same thing again, when repeated. */
const REPEATABLE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Exponential, with jitter (a half to the whole of it) so clients refused together do not return together. */
function backoff(options: RetryOptions, attempt: number): number {
  return Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt) * (0.5 + Math.random() / 2);
}

/** The wait before asking again, or undefined when this answer is the one to give the caller. */
async function delayFor(
  response: Response,
  attempt: number,
  repeatable: boolean,
  options: RetryOptions,
): Promise<number | undefined> {
  const told = retryAfterSeconds(response);
  const within = (ms: number) => (ms <= options.maxDelayMs ? ms : undefined);
  // A rate-limited request was refused before any work: it is always safe to send again.
  if (response.status === 429) return within(told === undefined ? backoff(options, attempt) : told * 1000);
  if (!repeatable) return undefined;
  // The service could not reach its database or Redis; nothing of the request was kept.
  if (response.status === 503) return within(told === undefined ? backoff(options, attempt) : told * 1000);
  if (response.status === 409) {
    // The first request with this Idempotency-Key (a timed-out attempt) is still running: its
    // answer is replayed once it is done.
    const body = (await response
      .clone()
      .json()
      .catch(() => undefined)) as { error?: { code?: string } } | undefined;
    if (body?.error?.code === 'REQUEST_IN_PROGRESS') return backoff(options, attempt);
  }
  return undefined;
}

/**
 * A fetch that asks again, a bounded number of times, where asking again cannot do a thing twice:
 * a 429 (after its Retry-After), and for a read or a request carrying an Idempotency-Key also a
 * 503, an answer that never came (connection lost, timeout) and a 409 REQUEST_IN_PROGRESS. The
 * service answers a repeated Idempotency-Key with the first answer, so a send whose answer was
 * lost is not sent again. A caller's own abort is never retried.
 */
export function retryingFetch(fetchImpl: Fetch, options: RetryOptions): Fetch {
  return async (request) => {
    const repeatable = REPEATABLE_METHODS.has(request.method) || request.headers.has('idempotency-key');
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= options.retries;
      // A body can be read once: every attempt but the last sends a copy.
      const copy = last ? request : request.clone();
      const signal = AbortSignal.any([request.signal, AbortSignal.timeout(options.timeoutMs)]);
      let response: Response;
      try {
        response = await fetchImpl(new Request(copy, { signal }));
      } catch (cause) {
        if (request.signal.aborted) throw cause;
        if (last || !repeatable)
          throw new BulkMessagingError({
            status: 0,
            code: 'NETWORK_ERROR',
            message: `${request.method} ${new URL(request.url).pathname}: no answer (${(cause as Error).message})`,
            cause,
          });
        await sleep(backoff(options, attempt));
        continue;
      }
      if (last) return response;
      const wait = await delayFor(response, attempt, repeatable, options);
      if (wait === undefined) return response;
      await response.body?.cancel();
      await sleep(wait);
    }
  };
}
