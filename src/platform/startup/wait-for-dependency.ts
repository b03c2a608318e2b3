import { errorText } from './error-text.js';

export interface StartupLogger {
  log(message: string): void;
  warn(message: string): void;
}

/** A dependency that did not answer within STARTUP_WAIT_SECONDS: one line says what and why. */
export class StartupWaitError extends Error {
  constructor(what: string, waitSeconds: number, cause: unknown) {
    super(`${what} did not answer within STARTUP_WAIT_SECONDS=${waitSeconds}: ${errorText(cause)}`);
    this.name = 'StartupWaitError';
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Tries `attempt` until it succeeds, a failure is not worth waiting out, or `waitSeconds`
 * have passed. One warning line per retry naming `what` and the cause, never a stack:
 * a server still starting is an ordinary event, not a crash.
 */
export async function waitForDependency<T>(
  what: string,
  attempt: () => Promise<T>,
  opts: { waitSeconds: number; isTransient: (err: unknown) => boolean; logger: StartupLogger },
): Promise<T> {
  const deadline = Date.now() + opts.waitSeconds * 1000;
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!opts.isTransient(err)) throw err;
      const left = deadline - Date.now();
      if (left <= 0) throw new StartupWaitError(what, opts.waitSeconds, err);
      const delay = Math.min(1000 * 2 ** Math.min(n - 1, 2), 5000, left);
      opts.logger.warn(
        `waiting for ${what}: ${errorText(err)}; retry ${n} in ${(delay / 1000).toFixed(1)} s ` +
          `(gives up ${Math.ceil(left / 1000)} s from now, STARTUP_WAIT_SECONDS=${opts.waitSeconds})`,
      );
      await sleep(delay);
    }
  }
}
