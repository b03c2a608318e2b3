export type Admission =
  | { ok: true; release: (succeeded: boolean) => void }
  /** busy: the target's slots are taken (try again soon, no attempt spent); open: the target keeps failing. */
  | { ok: false; reason: 'busy' | 'open'; retryInMs: number };

export interface GateOptions {
  /** Calls in flight to one target at a time. */
  perTarget: number;
  /** Consecutive failures that open the circuit. */
  failuresToOpen: number;
  /** How long an open circuit stays open before one call may probe the target. */
  openMs: number;
}

interface TargetState {
  inFlight: number;
  failures: number;
  openUntil: number;
}

/**
 * Keeps one callback target from taking every callback worker. Each target (scheme, host and
 * port) gets at most `perTarget` calls in flight; after `failuresToOpen` failures in a row its
 * circuit opens for `openMs`, then lets a single call through as a probe: a success closes the
 * circuit, a failure opens it again. State lives in the process: each worker keeps its own.
 */
export class TargetGate {
  private readonly targets = new Map<string, TargetState>();

  constructor(
    private readonly opts: GateOptions,
    private readonly now: () => number = Date.now,
  ) {}

  enter(target: string): Admission {
    const t = this.now();
    let s = this.targets.get(target);
    if (!s) {
      s = { inFlight: 0, failures: 0, openUntil: 0 };
      this.targets.set(target, s);
    }
    if (s.openUntil > t) return { ok: false, reason: 'open', retryInMs: s.openUntil - t };
    const probing = s.failures >= this.opts.failuresToOpen;
    if (s.inFlight >= (probing ? 1 : this.opts.perTarget)) return { ok: false, reason: 'busy', retryInMs: 1000 };
    s.inFlight++;
    const state = s;
    let released = false;
    return {
      ok: true,
      release: (succeeded) => {
        if (released) return;
        released = true;
        state.inFlight--;
        if (succeeded) {
          state.failures = 0;
          state.openUntil = 0;
        } else if (++state.failures >= this.opts.failuresToOpen) {
          state.openUntil = this.now() + this.opts.openMs;
        }
        if (state.inFlight === 0 && state.failures === 0) this.targets.delete(target);
      },
    };
  }

  /** A target's circuit is open right now (for tests and metrics). */
  isOpen(target: string): boolean {
    return (this.targets.get(target)?.openUntil ?? 0) > this.now();
  }
}

/** The unit of isolation: scheme, host and port, as written in the callback URL. */
export function targetOf(url: string): string {
  try {
    return new URL(url).origin.toLowerCase();
  } catch {
    return url;
  }
}
