import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { REDIS } from '../../platform/redis/redis.module.js';
import { targetOf } from './target-gate.js';

/**
 * Caps what test messages' callbacks may cost when their target fails: after
 * TEST_CALLBACK_FAILURES (N failed attempts in a window of S seconds, counted from the first
 * failure) of one account's test events to one target (scheme, host and port), that account's
 * further test events to it are dropped until the window ends: not sent, not retried, not
 * recorded. A test event the target takes clears the count. Live events are never dropped.
 * Counted in Redis, so every worker process shares the count; while Redis cannot answer,
 * nothing is dropped. (Test events also have a circuit of their own per account and target,
 * apart from the live one; while it is open, CallbackSender drops them at once instead of
 * holding them as it holds live events.)
 */
@Injectable()
export class TestCallbackCap {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  async exhausted(accountId: string, url: string): Promise<boolean> {
    const n = await this.redis.get(this.key(accountId, url)).catch(() => null);
    return Number(n ?? 0) >= this.config.testTraffic.callbackFailures.limit;
  }

  async failed(accountId: string, url: string): Promise<void> {
    const key = this.key(accountId, url);
    await this.redis
      .multi()
      .incr(key)
      .expire(key, this.config.testTraffic.callbackFailures.windowSeconds, 'NX')
      .exec()
      .catch(() => undefined);
  }

  async succeeded(accountId: string, url: string): Promise<void> {
    await this.redis.del(this.key(accountId, url)).catch(() => undefined);
  }

  private key(accountId: string, url: string): string {
    return `${this.config.queuePrefix}:test-callback-failures:${accountId}:${targetOf(url)}`;
  }
}
