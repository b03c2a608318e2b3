/** A lane already holds as many tasks as it may: the caller refuses the work rather than wait. */
export class LaneFull extends Error {
  constructor(readonly lane: string) {
    super(`lane ${lane} is full`);
  }
}

export interface FairQueueLimits {
  /** Tasks running at once, all lanes together. */
  concurrency: number;
  /** Tasks of one lane running at once (at most `concurrency`). */
  runningPerLane: number;
  /** Tasks of one lane running or waiting; one more is refused with LaneFull. */
  perLane: number;
}

interface Lane {
  running: number;
  waiting: Array<() => void>;
  /** When (in tasks started) this lane last started one: the lane served longest ago goes next. */
  lastStart: number;
}

/**
 * Runs tasks a few at a time, taking the lanes that have work in turn (round robin), so a lane
 * with a thousand tasks queued delays another lane's first task by one task, not a thousand.
 * Each lane is bounded: past `perLane` tasks running or waiting, `run` rejects with LaneFull at
 * once, so a flood is refused instead of queued without end.
 */
export class FairQueue {
  private readonly lanes = new Map<string, Lane>();
  private running = 0;
  private started = 0;

  constructor(private readonly limits: FairQueueLimits) {}

  /** Runs `task` in `lane`'s turn; rejects with LaneFull, without running it, when the lane is full. */
  run<T>(lane: string, task: () => Promise<T>): Promise<T> {
    const l = this.lanes.get(lane) ?? { running: 0, waiting: [], lastStart: 0 };
    if (l.running + l.waiting.length >= this.limits.perLane) return Promise.reject(new LaneFull(lane));
    this.lanes.set(lane, l);
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        l.running++;
        this.running++;
        // A task that throws at once is a rejection like any other: its slot is given back.
        new Promise<T>((r) => r(task())).then(resolve, reject).finally(() => {
          l.running--;
          this.running--;
          if (!l.running && !l.waiting.length) this.lanes.delete(lane);
          this.next();
        });
      };
      l.waiting.push(start);
      this.next();
    });
  }

  /** Tasks running and waiting in a lane (0 for a lane with none). */
  size(lane: string): number {
    const l = this.lanes.get(lane);
    return l ? l.running + l.waiting.length : 0;
  }

  private next(): void {
    while (this.running < this.limits.concurrency) {
      // The lane that started a task longest ago (a new lane: never), among those that may start
      // one now; ties go to the lane that arrived first (a Map keeps insertion order).
      let pick: Lane | undefined;
      for (const l of this.lanes.values()) {
        if (!l.waiting.length || l.running >= this.limits.runningPerLane) continue;
        if (!pick || l.lastStart < pick.lastStart) pick = l;
      }
      if (!pick) return;
      pick.lastStart = ++this.started;
      pick.waiting.shift()!();
    }
  }
}
