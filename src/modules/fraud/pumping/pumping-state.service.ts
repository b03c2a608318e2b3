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
 * A send's whole admission in one call: the caller's cap (when it brings one: a sliding window
 * of its own, such as a verification's per-number cap) is looked at, then the blocks of the
 * send's prefix and country (unless in monitor mode), and only when neither refuses is the
 * cap's place taken and the send counted in its prefix's window (unless it is not to be
 * counted: a safe-listed number). Answers {'capped', oldest entry's time}, {'blocked', field,
 * end} (the block that ends first), or {'counted', sends to the prefix in the hour, 0 uncounted}.
 * KEYS: the cap's window (or any key, unused, without a cap), the blocks hash, the prefix's window.
 * ARGV: now, cap window ms, cap limit (0: no cap), cap member, look at blocks (1/0), prefix's
 * block field, country's block field ('' for none), pumping window ms, send id, count (1/0).
 */
const ADMIT = `
local now = tonumber(ARGV[1])
local capLimit = tonumber(ARGV[3])
if capLimit > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
  if redis.call('ZCARD', KEYS[1]) >= capLimit then
    return {'capped', redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]}
  end
end
if ARGV[5] == '1' then
  local held, heldUntil = nil, nil
  for _, field in ipairs({ARGV[6], ARGV[7]}) do
    if field ~= '' then
      local u = tonumber(redis.call('HGET', KEYS[2], field))
      if u and u > now and (not heldUntil or u < heldUntil) then held, heldUntil = field, u end
    end
  end
  if held then return {'blocked', held, tostring(heldUntil)} end
end
if capLimit > 0 then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
if ARGV[10] ~= '1' then return {'counted', '0'} end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - tonumber(ARGV[8]))
redis.call('ZADD', KEYS[3], now, ARGV[9])
redis.call('PEXPIRE', KEYS[3], ARGV[8])
return {'counted', tostring(redis.call('ZCARD', KEYS[3]))}`;

/** A caller's own sliding-window cap, looked at and taken in the guard's call (VerificationRate's). */
export interface CapPlace {
  key: string;
  /** What the place is held under, to give it back. */
  member: string;
  limit: number;
  windowMs: number;
}

/** What admit asks: the send's prefix and country, and what to look at and count. */
export interface AdmitAsk {
  prefix: string;
  country: string | null;
  /** Look at the account's blocks (not in monitor mode). */
  checkBlocks: boolean;
  /** Count the send in its prefix's window (not for a safe-listed number). */
  count: boolean;
  id: string;
  cap?: CapPlace;
}

export type Admission =
  | { outcome: 'capped'; oldestAt: number }
  | { outcome: 'blocked'; block: ActiveBlock }
  | { outcome: 'counted'; sent: number };

/** The client with the scripts defined as commands: sent by their digest (EVALSHA), not their text each time. */
type WithScripts = Redis & {
  pumpingAdmit(...args: Array<string | number>): Promise<[string, string, string?]>;
};

/**
 * The pumping guard's short-lived state, in Redis and keyed by account and side: each prefix's
 * sends of the last hour (a sorted set by time) and the account's blocks (a hash of block →
 * end). Both expire by themselves an hour after their last write, so nothing needs sweeping,
 * and every API process sees the same counts and blocks at once.
 */
@Injectable()
export class PumpingState {
  private readonly redis: WithScripts;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) redis: Redis,
  ) {
    redis.defineCommand('pumpingAdmit', { numberOfKeys: 3, lua: ADMIT });
    this.redis = redis as WithScripts;
  }

  /** A send's cap, blocks and count in one call (ADMIT). */
  async admit(s: PumpingScope, ask: AdmitAsk, now = Date.now()): Promise<Admission> {
    const base = this.base(s);
    const { cap } = ask;
    const [outcome, a, b] = await this.redis.pumpingAdmit(
      cap?.key ?? `${base}:blocks`,
      `${base}:blocks`,
      `${base}:prefix:${ask.prefix}`,
      now,
      cap?.windowMs ?? 0,
      cap?.limit ?? 0,
      cap?.member ?? '',
      ask.checkBlocks ? 1 : 0,
      blockField('prefix', ask.prefix),
      ask.country ? blockField('country', ask.country) : '',
      PUMPING_WINDOW_MS,
      ask.id,
      ask.count ? 1 : 0,
    );
    if (outcome === 'capped') return { outcome, oldestAt: Number(a) };
    if (outcome === 'blocked') {
      const [kind, value] = a.split(':') as [BlockKind, string];
      return { outcome, block: { kind, value, until: new Date(Number(b)) } };
    }
    return { outcome: 'counted', sent: Number(a) };
  }

  private base(s: PumpingScope): string {
    return `${this.config.queuePrefix}:pumping:${s.accountId}:${s.testMode ? 'test' : 'live'}`;
  }

  /** Takes back a send counted by admit that did not go out. */
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
