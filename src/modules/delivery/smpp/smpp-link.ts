import { performance } from 'node:perf_hooks';
import smpp from 'smpp';
import type { PeriodicTask } from '../../../platform/periodic/periodic-task.js';

// The connection plumbing of the SMPP transport: one link with its outstanding requests, the
// submit window, and the pacing that caps throughput.

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `late`: the request was written and never answered on a live link (its fate at the peer is unknown). */
export type Reply =
  { ok: true; pdu: smpp.PDU } | { ok: false; reason: string; encode?: boolean; late?: boolean };

interface Pending {
  resolve: (reply: Reply) => void;
  timer: NodeJS.Timeout;
}

/** One TCP connection and its outstanding requests; responses are matched here by sequence number. */
export class Link {
  readonly pending = new Map<number, Pending>();
  bound = false;
  dead = false;
  lastError: string | null = null;
  enquireTimer: PeriodicTask | null = null;
  /** When the peer last sent anything: a slow answer to enquire_link on a link that still talks is not a dead link. */
  lastHeardAt = performance.now();
  private corked = false;

  constructor(readonly session: smpp.Session) {}

  /**
   * The library writes each PDU to the socket on its own: a window of submits (or a burst of
   * receipt answers) costs one system call each. Corking until the end of the tick sends
   * everything written in that tick as one write.
   */
  private coalesceWrites(): void {
    if (this.corked) return;
    const socket = (this.session as unknown as { socket?: { cork(): void; uncork(): void } }).socket;
    if (!socket) return;
    this.corked = true;
    socket.cork();
    process.nextTick(() => {
      this.corked = false;
      socket.uncork();
    });
  }

  /**
   * `late`: once `timeoutMs` passes without a response, call `onLate` and keep waiting `waitMs` more for it
   * instead of giving up: a response that arrives late still settles the request.
   */
  request(pdu: smpp.PDU, timeoutMs: number, late?: { waitMs: number; onLate: () => void }): Promise<Reply> {
    if (this.dead)
      return Promise.resolve({ ok: false, reason: `connection closed (${this.lastError ?? 'unknown'})` });
    return new Promise<Reply>((resolve) => {
      let written: boolean;
      try {
        this.coalesceWrites();
        written = this.session.send(pdu);
      } catch (e) {
        resolve({ ok: false, reason: `cannot encode ${pdu.command}: ${errorMessage(e)}`, encode: true });
        return;
      }
      if (!written) {
        resolve({ ok: false, reason: 'connection not writable' });
        return;
      }
      const seq = pdu.sequence_number;
      const giveUp = (waited: number, afterLateWait: boolean) => {
        this.pending.delete(seq);
        resolve({
          ok: false,
          reason: `no ${pdu.command}_resp within ${waited} ms`,
          ...(afterLateWait ? { late: true } : {}),
        });
      };
      const timer = setTimeout(() => {
        if (!late || late.waitMs <= 0) return giveUp(timeoutMs, false);
        late.onLate();
        const entry = this.pending.get(seq);
        if (entry) entry.timer = setTimeout(() => giveUp(timeoutMs + late.waitMs, true), late.waitMs);
      }, timeoutMs);
      this.pending.set(seq, { resolve, timer });
    });
  }

  settle(pdu: smpp.PDU): void {
    const pending = this.pending.get(pdu.sequence_number);
    if (!pending) return;
    this.pending.delete(pdu.sequence_number);
    clearTimeout(pending.timer);
    pending.resolve({ ok: true, pdu });
  }

  failAll(reason: string): void {
    this.dead = true;
    void this.enquireTimer?.stop();
    this.enquireTimer = null;
    for (const pending of this.pending.values()) {
      clearTimeout(pending.timer);
      pending.resolve({ ok: false, reason });
    }
    this.pending.clear();
  }

  respond(pdu: smpp.PDU): void {
    try {
      this.coalesceWrites();
      this.session.send(pdu);
    } catch {
      // Only a response to a malformed request can fail to encode; the peer's timer covers it.
    }
  }
}

/**
 * FIFO counting semaphore: the SMPP window. High-priority waiters go before all others, and the
 * last `reserve` slots are theirs alone: normal submits holding every slot while they wait for
 * the connector's pace would otherwise keep a high-priority one out until the pace reaches them.
 */
export class Window {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly urgent: Array<() => void> = [];

  constructor(
    private readonly size: number,
    private readonly reserve = 0,
  ) {}

  /** Submits holding a slot now. */
  get inUse(): number {
    return this.active;
  }

  /** Submits waiting for a slot. */
  get queued(): number {
    return this.waiting.length + this.urgent.length;
  }

  acquire(high = false): Promise<void> {
    if (this.active < this.limit(high)) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => (high ? this.urgent : this.waiting).push(resolve));
  }

  release(): void {
    this.active--;
    const next = this.urgent.shift() ?? (this.active < this.limit(false) ? this.waiting.shift() : undefined);
    if (next) {
      this.active++;
      next();
    }
  }

  private limit(high: boolean): number {
    return high ? this.size : this.size - this.reserve;
  }
}

/** Counts late responses and reports them at most once a few seconds, not once per submit_sm. */
export class LateNotes {
  private count = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly report: (count: number) => void) {}

  note(): void {
    this.count++;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      const n = this.count;
      this.count = 0;
      this.report(n);
    }, 2000);
    this.timer.unref();
  }
}
