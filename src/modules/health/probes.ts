import { connect } from 'node:net';

/** Resolves with the elapsed milliseconds, or rejects after `ms` so a hung dependency cannot hang a probe. */
export async function timed(check: () => Promise<unknown>, ms: number, what: string): Promise<number> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
  return Math.round(performance.now() - started);
}

/**
 * At most one probe of a dependency in flight: while one is still waiting on a hung
 * dependency, later callers share it instead of stacking more queries on the same pool.
 */
export class SingleFlight<T> {
  private pending?: Promise<T>;

  run(fn: () => Promise<T>): Promise<T> {
    if (!this.pending) {
      this.pending = fn().finally(() => {
        this.pending = undefined;
      });
    }
    return this.pending;
  }
}

export function humanDuration(totalSeconds: number): string {
  const s = Math.floor(totalSeconds);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const parts = [d && `${d}d`, (d || h) && `${h}h`, (d || h || m) && `${m}m`, `${s % 60}s`].filter(Boolean);
  return parts.join(' ');
}

export function errorText(err: unknown): string {
  const e = err as { message?: string; code?: string } | null;
  return e?.message || e?.code || String(err);
}

/** An SMPP 3.4 enquire_link PDU header (the whole PDU): length 16, id 0x15, status 0, sequence 1. */
const ENQUIRE_LINK = Buffer.from([0, 0, 0, 16, 0, 0, 0, 0x15, 0, 0, 0, 0, 0, 0, 0, 1]);

/**
 * Is an SMSC answering at host:port? Connects, sends one enquire_link without binding and
 * waits for any PDU back: an SMSC answers enquire_link_resp or generic_nack even unbound.
 * A listener that accepts and then says nothing counts as down, not up. Never throws.
 */
export function smppReachable(
  host: string,
  port: number,
  ms: number,
): Promise<{ ok: boolean; message: string; ms: number }> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let done = false;
    let received = 0;
    let connected = false;
    const socket = connect({ host, port });
    const finish = (ok: boolean, message: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ok, message, ms: elapsed() });
    };
    const where = `${host}:${port}`;
    const timer = setTimeout(
      () =>
        finish(
          false,
          connected
            ? `SMSC ${where} accepted the connection but sent no SMPP answer within ${ms} ms`
            : `SMSC ${where}: no connection within ${ms} ms`,
        ),
      ms,
    );
    socket.on('connect', () => {
      connected = true;
      socket.write(ENQUIRE_LINK);
    });
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received >= 16) finish(true, `SMSC ${where} answered an SMPP enquire_link`);
    });
    socket.on('error', (err) => finish(false, `SMSC ${where} unreachable: ${errorText(err)}`));
    socket.on('close', () => finish(false, `SMSC ${where} closed the connection without an SMPP answer`));
  });
}
