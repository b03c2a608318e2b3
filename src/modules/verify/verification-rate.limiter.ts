import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { keyedDigest } from '../../platform/crypto/keyed-digest.js';
import { REDIS } from '../../platform/redis/redis.module.js';
import type { CapPlace } from '../fraud/pumping/pumping-state.service.js';
import type { VerificationOwner } from './verification.store.js';

/** Verifications one account may start to one number in STARTS_WINDOW_MS. */
export const STARTS_PER_NUMBER = 5;
export const STARTS_WINDOW_MS = 600_000;

/**
 * Takes a place in the number's window if one is free: old entries dropped, the count compared
 * and the new one added in one step, so concurrent starts on several API processes never get a
 * sixth place between them. Answers 0 when taken, else the oldest entry's time (when a place frees).
 */
const TAKE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1] - ARGV[2])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]
end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 0`;

/** The client with TAKE defined as a command: sent by its digest (EVALSHA), not its text each time. */
type WithTake = Redis & {
  verificationRateTake(
    key: string,
    now: number,
    windowMs: number,
    limit: number,
    id: string,
  ): Promise<unknown>;
};

/** The milliseconds until a place frees, when the oldest of the full window was taken at `oldest`. */
export function waitAfter(oldest: number, now: number): number {
  return Math.max(1, oldest + STARTS_WINDOW_MS - now);
}

/** The per-number cap on verification starts, in Redis and keyed by account, side and number. */
@Injectable()
export class VerificationRate {
  private readonly redis: WithTake;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) redis: Redis,
  ) {
    redis.defineCommand('verificationRateTake', { numberOfKeys: 1, lua: TAKE });
    this.redis = redis as WithTake;
  }

  /** The number's key names it by its keyed digest: Redis holds no phone number or address in clear. */
  private key(o: VerificationOwner, recipient: string): string {
    const who = keyedDigest(this.config.serverSecret, 'verification-rate', recipient).toString('hex');
    return `${this.config.queuePrefix}:verify-rate:${o.accountId}:${o.testMode ? 'test' : 'live'}:${who}`;
  }

  /** Takes a place for verification `id`; answers the milliseconds until one frees when none is free. */
  async take(o: VerificationOwner, recipient: string, id: string, now = Date.now()): Promise<number> {
    const oldest = Number(
      await this.redis.verificationRateTake(
        this.key(o, recipient),
        now,
        STARTS_WINDOW_MS,
        STARTS_PER_NUMBER,
        id,
      ),
    );
    return oldest === 0 ? 0 : waitAfter(oldest, now);
  }

  /** The place of verification `id` as the pumping guard takes it, in the same call as its own count. */
  place(o: VerificationOwner, recipient: string, id: string): CapPlace {
    return { key: this.key(o, recipient), member: id, limit: STARTS_PER_NUMBER, windowMs: STARTS_WINDOW_MS };
  }

  /** Gives the place back: the start sent nothing. */
  async giveBack(o: VerificationOwner, recipient: string, id: string): Promise<void> {
    await this.redis.zrem(this.key(o, recipient), id);
  }
}
