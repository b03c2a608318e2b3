import { readFileSync } from 'node:fs';
import type { Check } from './checks.js';

/** Resident memory of a process in MB (VmRSS of /proc/<pid>/status), or NaN once it is gone. */
function rssMb(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmRSS:'));
    return line ? Number(line.split(/\s+/)[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

const median = (xs: number[]) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
};

/** The most a worker's resident memory may grow over the load, once warm (its first fifth). */
export const WORKER_RSS_GROWTH_MB = 20;

/**
 * Samples the resident memory of the soak's processes every few seconds during the load. Growth
 * is the median of the last fifth of the load's samples less the median of its second fifth:
 * the first fifth is warm-up (code compiled, pools and caches filled), and medians ride over a
 * garbage collection's sawtooth.
 */
export class MemorySampler {
  private readonly samples: Array<{ at: number; mb: number[] }> = [];
  private timer?: NodeJS.Timeout;
  private from = 0;

  constructor(private readonly procs: Array<{ name: string; pid: number | undefined }>) {}

  start(everyMs = 5000): void {
    this.from = Date.now();
    const take = () => this.samples.push({ at: Date.now(), mb: this.procs.map((p) => rssMb(p.pid)) });
    take();
    this.timer = setInterval(take, everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Per process: peak RSS, RSS once warm, at the end, and the growth between, in MB. */
  report(): Array<{ process: string; peak_mb: number; warm_mb: number; end_mb: number; growth_mb: number }> {
    const span = (this.samples.at(-1)?.at ?? this.from) - this.from;
    const within = (a: number, b: number) =>
      this.samples.filter((s) => s.at - this.from >= span * a && s.at - this.from <= span * b);
    return this.procs.map((p, i) => {
      const warm = median(within(0.2, 0.4).map((s) => s.mb[i]));
      const end = median(within(0.8, 1).map((s) => s.mb[i]));
      const round = (x: number) => Math.round(x * 10) / 10;
      return {
        process: p.name,
        peak_mb: round(Math.max(...this.samples.map((s) => s.mb[i]).filter(Number.isFinite))),
        warm_mb: round(warm),
        end_mb: round(end),
        growth_mb: round(end - warm),
      };
    });
  }

  /** The soak's check: no worker's memory grows more than WORKER_RSS_GROWTH_MB over the load. */
  check(): Check {
    const workers = this.report().filter((r) => r.process.startsWith('worker'));
    const worst = Math.max(...workers.map((w) => w.growth_mb));
    return {
      check: 'worker RSS growth over the load, once warm (median of last fifth less second fifth)',
      value: `${worst} MB`,
      expected: `≤ ${WORKER_RSS_GROWTH_MB} MB`,
      ok: workers.length > 0 && Number.isFinite(worst) && worst <= WORKER_RSS_GROWTH_MB,
    };
  }
}
