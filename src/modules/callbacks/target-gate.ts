export type Admission =
  /** release: once per admission (later calls are ignored); tookMs is the target's answer time, if measured apart. */
  | { ok: true; release: (succeeded: boolean, tookMs?: number) => void }
  /** busy: the target's slots are taken (try again soon, no attempt spent); open: the target keeps failing. */
  | { ok: false; reason: 'busy' | 'open'; retryInMs: number };

export interface GateOptions {
  /** Calls in flight to one target at a time, unless it has shown itself fast. */
  perTarget: number;
  /** Consecutive failures that open the circuit. */
  failuresToOpen: number;
  /** How long an open circuit stays open before one call may probe the target. */
  openMs: number;
}

/** A target whose calls take less than this (on average, lately) is not limited to perTarget. */
const FAST_MS = 500;
/** Weight of the newest call in the running average of call times. */
const EWMA_WEIGHT = 0.2;
/** A target unused for this long is forgotten (and starts limited again). */
const FORGET_AFTER_MS = 10 * 60_000;

interface TargetState {
  inFlight: number;
  failures: number;
  openUntil: number;
  /** Running average of call times (ms); undefined until a call has completed. */
  avgMs?: number;
  lastUsed: number;
}

/**
 * Keeps one callback target from taking every callback worker. A target (scheme, host and
 * port) gets at most `perTarget` calls in flight, unless its calls have lately been quick and
 * successful: a fast target may use every free worker, since it gives them back within
 * milliseconds, and is limited again as soon as it slows down or fails. After
 * `failuresToOpen` failures in a row its circuit opens for `openMs`, then lets a single call
 * through as a probe: a success closes the circuit, a failure opens it again. State lives in
 * the process: each worker keeps its own.
 */
export class TargetGate {
  private readonly targets = new Map<string, TargetState>();
  private lastPurge = 0;

  constructor(
    private readonly opts: GateOptions,
    private readonly now: () => number = Date.now,
  ) {}

  enter(target: string): Admission {
    const t = this.now();
    this.purge(t);
    let s = this.targets.get(target);
    if (!s) {
      s = { inFlight: 0, failures: 0, openUntil: 0, lastUsed: t };
      this.targets.set(target, s);
    }
    s.lastUsed = t;
    if (s.openUntil > t) return { ok: false, reason: 'open', retryInMs: s.openUntil - t };
    if (s.inFlight >= this.limit(s)) return { ok: false, reason: 'busy', retryInMs: 1000 };
    s.inFlight++;
    const state = s;
    const started = t;
    let released = false;
    return {
      ok: true,
      release: (succeeded, tookMs) => {
        if (released) return;
        released = true;
        const end = this.now();
        const took = tookMs ?? end - started;
        state.inFlight--;
        state.lastUsed = end;
        state.avgMs = state.avgMs === undefined ? took : state.avgMs * (1 - EWMA_WEIGHT) + took * EWMA_WEIGHT;
        if (succeeded) {
          state.failures = 0;
          state.openUntil = 0;
        } else if (++state.failures >= this.opts.failuresToOpen) {
          state.openUntil = end + this.opts.openMs;
        }
      },
    };
  }

  /** A target's circuit is open right now (for tests and metrics). */
  isOpen(target: string): boolean {
    return (this.targets.get(target)?.openUntil ?? 0) > this.now();
  }

  /** Targets whose circuit opened and that have not answered a call well since (open or probing). */
  failing(): string[] {
    return [...this.targets].filter(([, s]) => s.failures >= this.opts.failuresToOpen).map(([t]) => t);
  }

  private limit(s: TargetState): number {
    if (s.failures >= this.opts.failuresToOpen) return 1; // probing a target whose circuit was open
    const fast = s.failures === 0 && s.avgMs !== undefined && s.avgMs < FAST_MS;
    return fast ? Number.POSITIVE_INFINITY : this.opts.perTarget;
  }

  private purge(t: number): void {
    if (t - this.lastPurge < 60_000) return;
    this.lastPurge = t;
    for (const [target, s] of this.targets)
      if (s.inFlight === 0 && t - s.lastUsed > FORGET_AFTER_MS) this.targets.delete(target);
  }
}

/**
 * The unit of isolation: one account's calls to one target. A receiver shared by many tenants
 * (an integration platform) fails for one tenant's endpoint without holding the others' events.
 */
export function circuitOf(accountId: string, url: string): string {
  return `${accountId} ${targetOf(url)}`;
}

/** The target of a circuit key (what metrics name: targets, not accounts). */
export function targetOfCircuit(circuit: string): string {
  return circuit.slice(circuit.indexOf(' ') + 1);
}

/** A target: scheme, host and port, as written in the callback URL. */
export function targetOf(url: string): string {
  try {
    return new URL(url).origin.toLowerCase();
  } catch {
    return url;
  }
}
