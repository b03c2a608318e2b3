import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { REDIS } from '../../../platform/redis/redis.module.js';
import { blockField, PUMPING_WINDOW_MS, type BlockKind } from './pumping-rules.js';

/** One side (live or test) of one account: test traffic never blocks live sends. */
export interface PumpingScope {
  accountId: string;
  testMode: boolean;
}

export interface ActiveBlock {
  kind: BlockKind;
  value: string;
  until: Date;
}

/**
 * Adds one send to a prefix's hourly window and answers how many the window now holds: old
 * entries dropped, the new one added, in one step, so concurrent API processes never count one
 * send twice nor miss one.
 */
const RESERVE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1] - ARGV[2])
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('ZCARD', KEYS[1])`;

/**
 * The pumping guard's short-lived state, in Redis and keyed by account and side: each prefix's
 * sends of the last hour (a sorted set by time) and the account's blocks (a hash of block →
 * end). Both expire by themselves an hour after their last write, so nothing needs sweeping,
 * and every API process sees the same counts and blocks at once.
 */
@Injectable()
export class PumpingState {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  private base(s: PumpingScope): string {
    return `${this.config.queuePrefix}:pumping:${s.accountId}:${s.testMode ? 'test' : 'live'}`;
  }

  /** Counts one send to `prefix` (under `id`) and answers the sends of the last hour, this one included. */
  async reserve(s: PumpingScope, prefix: string, id: string, now = Date.now()): Promise<number> {
    const key = `${this.base(s)}:prefix:${prefix}`;
    return Number(await this.redis.eval(RESERVE, 1, key, now, PUMPING_WINDOW_MS, id));
  }

  /** Takes back a send counted by reserve that did not go out. */
  async release(s: PumpingScope, prefix: string, id: string): Promise<void> {
    await this.redis.zrem(`${this.base(s)}:prefix:${prefix}`, id);
  }

  async block(s: PumpingScope, kind: BlockKind, value: string, until: Date): Promise<void> {
    const key = `${this.base(s)}:blocks`;
    await this.redis
      .multi()
      .hset(key, blockField(kind, value), until.getTime())
      .pexpire(key, PUMPING_WINDOW_MS)
      .exec();
  }

  async blocks(s: PumpingScope, now = Date.now()): Promise<ActiveBlock[]> {
    const all = await this.redis.hgetall(`${this.base(s)}:blocks`);
    const out: ActiveBlock[] = [];
    for (const [field, until] of Object.entries(all)) {
      if (Number(until) <= now) continue;
      const [kind, value] = field.split(':') as [BlockKind, string];
      out.push({ kind, value, until: new Date(Number(until)) });
    }
    return out.sort((a, b) => a.until.getTime() - b.until.getTime());
  }

  /** Lifts every block of the side and forgets its hourly counts. */
  async clear(s: PumpingScope): Promise<number> {
    const keys = [`${this.base(s)}:blocks`];
    let cursor = '0';
    do {
      const [next, found] = await this.redis.scan(cursor, 'MATCH', `${this.base(s)}:prefix:*`, 'COUNT', 500);
      keys.push(...found);
      cursor = next;
    } while (cursor !== '0');
    const lifted = (await this.blocks(s)).length;
    await this.redis.del(...keys);
    return lifted;
  }
}
