/** The part of a logger the limiter needs (Nest's Logger fits). */
export interface WarnSink {
  warn(message: string): void;
}

interface Window {
  until: number;
  suppressed: number;
  last: string;
  timer?: NodeJS.Timeout;
}

/**
 * Keeps an outage from flooding the log: the first warning of a kind is written at once, the
 * same kind again within the window is only counted, and when the window closes one line says
 * how many were held back (with the last of them). A kind is the message with its numbers
 * blanked out, so "3 report(s) failed" and "7 report(s) failed" count together, unless the
 * caller names the cause itself.
 */
export class RepeatLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly sink: WarnSink,
    private readonly windowMs = 5000,
    private readonly now: () => number = Date.now,
  ) {}

  warn(message: string, cause = message.replace(/\d+/g, '#')): void {
    const t = this.now();
    const w = this.windows.get(cause);
    if (w && t < w.until) {
      w.suppressed++;
      w.last = message;
      return;
    }
    this.windows.set(cause, { until: t + this.windowMs, suppressed: 0, last: message });
    this.sink.warn(message);
    this.scheduleSummary(cause);
  }

  /** Writes the summaries of every open window now (at shutdown, and in tests). */
  flush(): void {
    for (const cause of [...this.windows.keys()]) this.summarise(cause);
  }

  private scheduleSummary(cause: string): void {
    const w = this.windows.get(cause)!;
    w.timer = setTimeout(() => this.summarise(cause), this.windowMs);
    w.timer.unref();
  }

  private summarise(cause: string): void {
    const w = this.windows.get(cause);
    if (!w) return;
    clearTimeout(w.timer);
    this.windows.delete(cause);
    if (w.suppressed > 0) {
      this.sink.warn(
        `${w.suppressed} more like this in the last ${Math.round(this.windowMs / 1000)} s, the latest: ${w.last}`,
      );
    }
  }
}
