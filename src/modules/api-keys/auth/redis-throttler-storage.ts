import type { OnModuleDestroy } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { Redis, type RedisOptions } from 'ioredis';
import { MicroBatcher, type ItemOutcome } from '../../../platform/batching/micro-batcher.js';

/** What a count answers (the package does not export the type by name). */
type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * The key's count and block, for ARGV[5] hits in arrival order, each with the same rules and
 * answer as a script of its own (the rules and keys of @nest-lab/throttler-storage-redis, so
 * processes running either share one count): totalHits, timeToExpire, isBlocked, timeToBlockExpire
 * per hit, one after the other. Sent as EVALSHA rather than the whole script every time.
 */
const SCRIPT = `
local hitKey = KEYS[1]
local blockKey = KEYS[2]
local ttl = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local blockDuration = tonumber(ARGV[4])
local out = {}
for i = 1, tonumber(ARGV[5]) do
  local totalHits = redis.call('INCR', hitKey)
  local timeToExpire = redis.call('PTTL', hitKey)
  if timeToExpire <= 0 then
    redis.call('PEXPIRE', hitKey, ttl)
    timeToExpire = ttl
  end
  local isBlocked = redis.call('GET', blockKey)
  local timeToBlockExpire = 0
  if isBlocked then
    timeToBlockExpire = redis.call('PTTL', blockKey)
  elseif totalHits > limit then
    redis.call('SET', blockKey, 1, 'PX', blockDuration)
    isBlocked = '1'
    timeToBlockExpire = blockDuration
  end
  if isBlocked and timeToBlockExpire <= 0 then
    redis.call('DEL', blockKey)
    redis.call('SET', hitKey, 1, 'PX', ttl)
    totalHits = 1
    timeToExpire = ttl
    isBlocked = false
  end
  out[#out + 1] = totalHits
  out[#out + 1] = timeToExpire
  out[#out + 1] = isBlocked and 1 or 0
  out[#out + 1] = timeToBlockExpire
end
return out`;

type Counting = Redis & {
  throttleCount(
    hitKey: string,
    blockKey: string,
    name: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    hits: number,
  ): Promise<number[]>;
};

interface Hit {
  hitKey: string;
  blockKey: string;
  name: string;
  ttl: number;
  limit: number;
  blockDuration: number;
}

/**
 * The rate limiter's counters in Redis, one count per key across every API process. The hits
 * that arrive in the same tick are counted together: one script call per key (and limit) for
 * all of them, each hit answered as if it had been counted alone, in arrival order. The calls
 * of one tick share one write on the connection (a pipeline of their own), and one tick's calls
 * do not wait for an earlier tick's.
 *
 * Not ioredis' auto-pipelining: it keeps each tick's pipeline in a long-lived Map, whose old
 * tables keep the waiting requests alive into the old generation
 * (docs/performance.md#garbage-that-lives-too-long).
 */
export class RedisThrottlerStorage implements ThrottlerStorage, OnModuleDestroy {
  readonly redis: Counting;
  private readonly hits = new MicroBatcher<Hit, ThrottlerStorageRecord>({
    // Bounds one script's time in Redis when a tick brings a flood of one key's hits.
    maxBatch: 500,
    overlap: true,
    flush: (hits) => this.countAll(hits),
  });

  /** `target`: a URL, or complete options (src/platform/redis/redis-options.ts). */
  constructor(target: string | RedisOptions, options: RedisOptions = {}) {
    this.redis = (
      typeof target === 'string' ? new Redis(target, options) : new Redis({ ...target, ...options })
    ) as Counting;
    this.redis.defineCommand('throttleCount', { numberOfKeys: 2, lua: SCRIPT });
  }

  increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    return this.hits.push({
      hitKey: `{${key}:${throttlerName}}:hits`,
      blockKey: `{${key}:${throttlerName}}:blocked`,
      name: throttlerName,
      ttl,
      limit,
      blockDuration,
    });
  }

  /** One script call per key and rules (a call never spans two keys' hash slots). */
  private async countAll(hits: Hit[]): Promise<ItemOutcome<ThrottlerStorageRecord>[]> {
    const groups = new Map<string, number[]>();
    hits.forEach((h, i) => {
      const id = `${h.hitKey} ${h.ttl} ${h.limit} ${h.blockDuration}`;
      const group = groups.get(id);
      if (group) group.push(i);
      else groups.set(id, [i]);
    });
    const outcomes = new Array<ItemOutcome<ThrottlerStorageRecord>>(hits.length);
    const answer = (group: number[], r: number[]) =>
      group.forEach((i, n) => {
        outcomes[i] = { status: 'fulfilled', value: record(r, n * 4) };
      });
    const fail = (group: number[], reason: unknown) => {
      for (const i of group) outcomes[i] = { status: 'rejected', reason };
    };
    const calls = [...groups.values()];
    if (calls.length === 1) {
      // The common case, one key in the tick: no pipeline to build.
      const group = calls[0]!;
      try {
        answer(group, await this.count(this.redis, hits[group[0]!]!, group.length));
      } catch (reason) {
        fail(group, reason);
      }
      return outcomes;
    }
    const pipeline = this.redis.pipeline() as unknown as Counting;
    for (const group of calls) void this.count(pipeline, hits[group[0]!]!, group.length);
    try {
      const results = (await (pipeline as unknown as ReturnType<Redis['pipeline']>).exec()) ?? [];
      calls.forEach((group, k) => {
        const [err, r] = results[k] ?? [new Error('no answer from Redis')];
        if (err) fail(group, err);
        else answer(group, r as number[]);
      });
    } catch (reason) {
      for (const group of calls) fail(group, reason);
    }
    return outcomes;
  }

  /** Counts `n` hits of `h`'s key, on the client or queued on a pipeline (whose exec answers). */
  private count(target: Counting, h: Hit, n: number): Promise<number[]> {
    return target.throttleCount(h.hitKey, h.blockKey, h.name, h.ttl, h.limit, h.blockDuration, n);
  }

  onModuleDestroy(): void {
    this.redis.disconnect(false);
  }
}

function record(r: number[], at: number): ThrottlerStorageRecord {
  return {
    totalHits: r[at]!,
    timeToExpire: Math.ceil(r[at + 1]! / 1000),
    isBlocked: r[at + 2] === 1,
    timeToBlockExpire: Math.ceil(r[at + 3]! / 1000),
  };
}
