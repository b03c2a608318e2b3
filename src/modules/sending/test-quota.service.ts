import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { AppException } from '../../platform/errors/app.exception.js';
import { RepeatLimiter } from '../../platform/logging/repeat-limiter.js';
import { REDIS } from '../../platform/redis/redis.module.js';

/** Messages taken from an account's test quota for one request, to give back if it is not stored. */
export interface TestQuotaTaken {
  key: string;
  count: number;
}

/**
 * Adds the request's messages to today's count and keeps them only if the count stays within
 * the limit: concurrent requests, from any number of API processes, never take more than the
 * limit between them. Answers the count after, or -1 (nothing taken) when they do not fit.
 */
const TAKE = `
local n = redis.call('INCRBY', KEYS[1], ARGV[1])
if n == tonumber(ARGV[1]) then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
if n > tonumber(ARGV[2]) then
  redis.call('DECRBY', KEYS[1], ARGV[1])
  return -1
end
return n`;

/** A day's count outlives its day by this much, then Redis forgets it. */
const KEEP_SECONDS = 2 * 86_400;

/**
 * The daily quota of test messages per account and its sub-accounts together (TEST_DAILY_MESSAGES, per UTC day): test keys
 * cost nothing, so without it they would be free volume on the workers, MySQL and callback
 * queue every tenant shares. Counted in Redis, shared by every API process. Fails open: while
 * Redis cannot answer, test sends are not counted (as the key rate limit does), rather than
 * refused.
 */
@Injectable()
export class TestQuota {
  private readonly warnings = new RepeatLimiter(new Logger('TestQuota'));

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  /**
   * Takes `count` messages from today's quota of the test keys of a family (a parent and its
   * sub-accounts, by familyRoot); 429 RATE_LIMITED when they do not fit.
   */
  async take(accountId: string, count: number, now = new Date()): Promise<TestQuotaTaken | null> {
    const limit = this.config.testTraffic.dailyMessages;
    const day = now.toISOString().slice(0, 10);
    const key = `${this.config.queuePrefix}:test-quota:${accountId}:${day}`;
    let after: number;
    try {
      after = Number(await this.redis.eval(TAKE, 1, key, count, limit, KEEP_SECONDS));
    } catch (err) {
      this.warnings.warn(`test quota not counted while Redis cannot answer: ${(err as Error).message}`);
      return null;
    }
    if (after >= 0) return { key, count };
    const used = Number((await this.redis.get(key).catch(() => null)) ?? limit);
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    const retryAfter = String(Math.max(1, Math.ceil((midnight - now.getTime()) / 1000)));
    throw new AppException(
      'RATE_LIMITED',
      `Test keys of this account (with its parent or sub-accounts) may send ${limit} messages per UTC day; ${Math.max(0, limit - used)} remain today and this request has ${count}.`,
      [{ field: 'test_daily_messages', message: `remaining ${Math.max(0, limit - used)}` }],
      { 'Retry-After': retryAfter },
    );
  }

  /** Gives back what a request took when it was not stored after all (a replay, a refusal). */
  async giveBack(taken: TestQuotaTaken | null): Promise<void> {
    if (!taken) return;
    await this.redis.decrby(taken.key, taken.count).catch(() => undefined);
  }
}
