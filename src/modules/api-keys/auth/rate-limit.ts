import type { ExecutionContext } from '@nestjs/common';
import type { ThrottlerModuleOptions } from '@nestjs/throttler';
import type { AppConfig } from '../../../config/config.js';
import { redisOptions } from '../../../platform/redis/redis-options.js';
import type { AuthedRequest } from './auth-context.js';
import { RedisThrottlerStorage } from './redis-throttler-storage.js';

/** The one throttler: its limit and window are read from the calling key (limitFor). */
export const KEY_THROTTLER = 'key';

const READY_WAIT_MS = 2000;

/** The key's own limit when it has one, else the configured default (RATE_LIMIT_DEFAULT). */
export function limitFor(ctx: ExecutionContext, config: AppConfig): { limit: number; windowSeconds: number } {
  const key = ctx.switchToHttp().getRequest<AuthedRequest>().auth?.key;
  if (key?.rateLimit && key.rateWindowSeconds)
    return { limit: key.rateLimit, windowSeconds: key.rateWindowSeconds };
  return config.defaultRateLimit;
}

/**
 * The counters live in Redis (one count per key across all API processes), under the
 * deployment's prefix. The storage gets connection options, not a client: it then owns the
 * connection and closes it at shutdown. No offline queue and a short command timeout: while
 * Redis is away a count fails at once and the guard lets the request through (fail open).
 */
export async function createRateLimitStorage(config: AppConfig): Promise<RedisThrottlerStorage> {
  const storage = new RedisThrottlerStorage(
    redisOptions(config.redis, {
      keyPrefix: `${config.queuePrefix}:ratelimit:`,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      commandTimeout: 1000,
    }),
  );
  const redis = storage.redis;
  // The guard reports an outage once when a count fails; without a listener ioredis prints every retry.
  redis.on('error', () => undefined);
  // Without an offline queue a count sent before the connection is up would fail: wait for it
  // briefly at start, so the first requests are counted (and a Redis that is down does not hold the start).
  if (redis.status !== 'ready') {
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, READY_WAIT_MS);
      redis.once('ready', done);
    });
  }
  return storage;
}

export async function rateLimitOptions(config: AppConfig): Promise<ThrottlerModuleOptions> {
  return {
    storage: await createRateLimitStorage(config),
    throttlers: [
      {
        name: KEY_THROTTLER,
        limit: (ctx) => limitFor(ctx, config).limit,
        ttl: (ctx) => limitFor(ctx, config).windowSeconds * 1000,
      },
    ],
  };
}
