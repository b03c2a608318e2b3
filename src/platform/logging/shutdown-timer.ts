import { Logger } from '@nestjs/common';

/**
 * On the first SIGTERM/SIGINT: runs `onSignal` (synchronously, right after Nest's own
 * listener has begun the shutdown hooks) and arms a timer that ends the process if the
 * graceful shutdown has not finished within `graceMs`, with a log line saying so. The timer
 * is unref'd: a shutdown that finishes in time exits on its own.
 */
export function forceExitAfterGrace(
  graceMs: number,
  onSignal: (signal: NodeJS.Signals) => void = () => undefined,
): void {
  let fired = false;
  const handler = (signal: NodeJS.Signals) => {
    if (fired) return;
    fired = true;
    const timer = setTimeout(() => {
      new Logger('Shutdown').error(
        `graceful shutdown did not finish within SHUTDOWN_GRACE_MS=${graceMs} ms; forcing exit`,
      );
      process.exit(1);
    }, graceMs);
    timer.unref();
    onSignal(signal);
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}
