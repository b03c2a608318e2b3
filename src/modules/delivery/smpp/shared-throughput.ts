import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { Pacer } from '../../../platform/timing/pacer.js';
import type { Throughput } from './smpp.transport.js';

/**
 * A second is handed out in tenths, so a connector's sends spread over the second instead of
 * bunching at its start. The last tenth grants nothing: a submit granted then could reach the
 * SMSC in the next second, on top of that second's own share; the first nine share the TPS.
 */
const SLOTS_PER_SECOND = 10;
const SLOT_MS = 1000 / SLOTS_PER_SECOND;
const GRANTING_SLOTS = SLOTS_PER_SECOND - 1;
/** A Redis that does not answer within this long is treated as down (the process paces itself alone). */
const REDIS_WAIT_MS = 500;
/** After a throttling answer the connector runs at half its pace, down to this share of its TPS. */
const MIN_SHARE = 1 / 16;
/** A second without throttling answers gives back this much pace (multiplied). */
const RECOVERY = 1.25;

/** How many of a second's `tps` sends may have gone by the end of tenth `slot` (0-9): all of them by the ninth. */
export function sharedUpTo(tps: number, slot: number): number {
  const i = ((slot % SLOTS_PER_SECOND) + SLOTS_PER_SECOND) % SLOTS_PER_SECOND;
  return Math.floor((Math.min(i + 1, GRANTING_SLOTS) * tps) / GRANTING_SLOTS);
}

/**
 * What high-priority submits may have taken by the end of tenth `slot`: one tenth's share ahead
 * of the even pace (one submit ahead at least), never more than the TPS. They then do not wait
 * for this process to win a tenth from the other workers, the second's cap still holds, and a
 * burst of them still spreads over the second.
 */
export function aheadUpTo(tps: number, slot: number): number {
  return Math.min(tps, Math.max(sharedUpTo(tps, slot + 1), sharedUpTo(tps, slot) + 1));
}

/**
 * Given the second's counter before and after adding `want`, how many of them fall within
 * `limit`. Only those are used; the rest are given back, so the counter never runs ahead of
 * what was granted by more than the requests in flight, and a point is never granted twice.
 */
export function granted(counterAfter: number, want: number, limit: number): number {
  return Math.max(0, Math.min(want, limit - (counterAfter - want)));
}

export interface SharedThroughputOptions {
  redis: Redis;
  keyPrefix: string;
  connector: string;
  tps: number;
  onRedisError?: (err: Error) => void;
}

/**
 * One connector's TPS held across every worker: each calendar second's sends are counted in
 * Redis (rate-limiter-flexible's atomic counter with expiry, one key per second), and a
 * process takes points for as many of its waiting submits as the second has left up to the
 * current tenth of it, in one round trip. Whatever the number of workers, no calendar second
 * gets more than the TPS, and the sends spread over the second (a tenth missed by a late
 * timer is caught up later in the same second). High-priority submits are served first, and
 * at once: they may run a tenth's share ahead of the pace (`aheadUpTo`).
 * Throttling answers from the SMSC halve the pace this process takes (down to 1/16), and
 * each quiet second gives some back. If Redis fails, the process paces itself alone at the
 * TPS until it answers again.
 */
export class SharedThroughput implements Throughput {
  private readonly limiter: RateLimiterRedis;
  private readonly urgent: Array<() => void> = [];
  private readonly waiting: Array<() => void> = [];
  private fallback: Pacer;
  private pumping = false;
  private wake: (() => void) | null = null;
  private closed = false;
  private share = 1;
  private lastThrottleAt = 0;
  private lastRecoveryAt = 0;

  constructor(private readonly options: SharedThroughputOptions) {
    this.limiter = new RateLimiterRedis({
      storeClient: options.redis,
      keyPrefix: options.keyPrefix,
      // Large enough never to refuse: how many of the points fit is decided from the count.
      points: 1_000_000_000,
      duration: 1,
    });
    this.fallback = new Pacer(options.tps);
  }

  get tps(): number {
    return this.options.tps;
  }

  /** A TPS change from the connectors table, applied to the next slot. */
  setTps(tps: number): void {
    this.options.tps = tps;
    this.fallback = new Pacer(tps);
    if (tps <= 0) this.release(this.queued);
  }

  /** Submits waiting for a point. */
  get queued(): number {
    return this.urgent.length + this.waiting.length;
  }

  /** The pace this process takes now, in submits per second. */
  get currentTps(): number {
    this.recover();
    return Math.max(1, Math.floor(this.options.tps * this.share));
  }

  take(high: boolean): Promise<void> | null {
    if (this.options.tps <= 0 || this.closed) return null;
    return new Promise<void>((resolve) => {
      (high ? this.urgent : this.waiting).push(resolve);
      if (high) this.wake?.();
      void this.pump();
    });
  }

  /** The SMSC answered ESME_RTHROTTLED or ESME_RMSGQFUL: slow down. */
  throttled(): void {
    this.share = Math.max(MIN_SHARE, this.share / 2);
    this.lastThrottleAt = Date.now();
  }

  /** Lets every waiter go (they find the connection closed and report it). */
  close(): void {
    this.closed = true;
    for (const resolve of [...this.urgent.splice(0), ...this.waiting.splice(0)]) resolve();
    this.wake?.();
  }

  private recover(): void {
    const now = Date.now();
    if (this.share < 1 && now - this.lastThrottleAt >= 1000 && now - this.lastRecoveryAt >= 1000) {
      this.share = Math.min(1, this.share * RECOVERY);
      this.lastRecoveryAt = now;
    }
  }

  private release(n: number): void {
    for (let i = 0; i < n; i++) (this.urgent.shift() ?? this.waiting.shift())?.();
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.queued > 0 && !this.closed) {
        const now = Date.now();
        const slot = Math.floor(now / SLOT_MS);
        const second = Math.floor(now / 1000);
        if (slot % SLOTS_PER_SECOND === GRANTING_SLOTS) {
          await this.nap(1000 - (now % 1000) + 1);
          continue;
        }
        const urgent = this.urgent.length > 0;
        const limit = urgent ? aheadUpTo(this.currentTps, slot) : sharedUpTo(this.currentTps, slot);
        const want = Math.min(urgent ? this.urgent.length : this.queued, limit);
        if (want === 0) {
          await this.nap((slot + 1) * SLOT_MS - now + 1);
          continue;
        }
        const key = `${this.options.connector}:${second}`;
        const counter = await this.count(key, want);
        if (counter === null) {
          // Redis did not answer: pace alone for this one.
          await this.fallback.take();
          this.release(1);
          continue;
        }
        const got = granted(counter, want, limit);
        this.release(got);
        if (got < want) {
          // Give back what was not used, so later tenths of the second can still have it.
          void this.limiter.reward(key, want - got).catch(() => undefined);
          await this.nap((slot + 1) * SLOT_MS - Date.now() + 1);
        }
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Waits until the next tenth, or until a high-priority submit arrives. */
  private nap(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
    });
  }

  /** The slot's counter after adding `points`, or null when Redis failed. */
  private async count(key: string, points: number): Promise<number | null> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${REDIS_WAIT_MS} ms`)), REDIS_WAIT_MS);
    });
    try {
      return (await Promise.race([this.limiter.consume(key, points), late])).consumedPoints;
    } catch (err) {
      if (err instanceof RateLimiterRes) return err.consumedPoints;
      this.options.onRedisError?.(err as Error);
      return null;
    } finally {
      clearTimeout(timer);
    }
  }
}
