import type { OnModuleDestroy } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { Redis, type RedisOptions } from 'ioredis';

/**
 * The key's count and block in one script: the same keys and rules as
 * @nest-lab/throttler-storage-redis (so processes running either share one count), sent as
 * EVALSHA rather than the whole script on every request.
 */
const SCRIPT = `
local hitKey = KEYS[1]
local blockKey = KEYS[2]
local ttl = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local blockDuration = tonumber(ARGV[4])
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
return { totalHits, timeToExpire, isBlocked and 1 or 0, timeToBlockExpire }`;

type Counting = Redis & {
  throttleCount(
    hitKey: string,
    blockKey: string,
    name: string,
    ttl: number,
    limit: number,
    blockDuration: number,
  ): Promise<[number, number, number, number]>;
};

/**
 * The rate limiter's counters in Redis, one count per key across every API process. Its own
 * connection with auto-pipelining: the counts of the requests that arrive in the same tick go
 * to Redis in one write and come back in one read, each still its own atomic script.
 */
export class RedisThrottlerStorage implements ThrottlerStorage, OnModuleDestroy {
  readonly redis: Counting;

  constructor(url: string, options: RedisOptions) {
    this.redis = new Redis(url, { ...options, enableAutoPipelining: true }) as Counting;
    this.redis.defineCommand('throttleCount', { numberOfKeys: 2, lua: SCRIPT });
  }

  async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string) {
    const [totalHits, timeToExpire, isBlocked, timeToBlockExpire] = await this.redis.throttleCount(
      `{${key}:${throttlerName}}:hits`,
      `{${key}:${throttlerName}}:blocked`,
      throttlerName,
      ttl,
      limit,
      blockDuration,
    );
    return {
      totalHits,
      timeToExpire: Math.ceil(timeToExpire / 1000),
      isBlocked: isBlocked === 1,
      timeToBlockExpire: Math.ceil(timeToBlockExpire / 1000),
    };
  }

  onModuleDestroy(): void {
    this.redis.disconnect(false);
  }
}
