import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { REDIS } from '../../../platform/redis/redis.module.js';

/** Failed binds of one system_id from one address before the pair is refused. */
export const BIND_FAILURES = 5;
/** The window they are counted in, and how long the pair is then refused. */
export const BIND_LOCKOUT_SECONDS = 300;

/**
 * Failed binds counted per (system_id, address) pair across processes (rate-limiter-flexible
 * in Redis, in memory while Redis is away). Only the pair is locked: a guesser cannot lock a
 * customer out from its own address, nor lock an address out of its other system_ids.
 */
@Injectable()
export class BindLockout {
  private readonly limiter: RateLimiterRedis;

  constructor(@Inject(APP_CONFIG) config: AppConfig, @Inject(REDIS) redis: Redis) {
    const opts = {
      keyPrefix: `${config.queuePrefix}:smpp:bindfail`,
      points: BIND_FAILURES,
      duration: BIND_LOCKOUT_SECONDS,
      blockDuration: BIND_LOCKOUT_SECONDS,
    };
    this.limiter = new RateLimiterRedis({
      ...opts,
      storeClient: redis,
      insuranceLimiter: new RateLimiterMemory(opts),
    });
  }

  private key(systemId: string, address: string): string {
    return `${address}|${systemId}`;
  }

  async locked(systemId: string, address: string): Promise<boolean> {
    const res = await this.limiter.get(this.key(systemId, address)).catch(() => null);
    return !!res && res.consumedPoints >= BIND_FAILURES;
  }

  async failed(systemId: string, address: string): Promise<void> {
    // Rejects once over the limit: that is the lock itself, nothing to report.
    await this.limiter.consume(this.key(systemId, address)).catch(() => undefined);
  }

  async succeeded(systemId: string, address: string): Promise<void> {
    await this.limiter.delete(this.key(systemId, address)).catch(() => undefined);
  }
}
