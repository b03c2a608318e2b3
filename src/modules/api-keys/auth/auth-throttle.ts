import { Inject, Injectable } from '@nestjs/common';
import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { APP_CONFIG, type AppConfig, type RateLimit } from '../../../config/config.js';
import { MetricsService } from '../../metrics/metrics.service.js';
import { AppException } from '../../../platform/errors/app.exception.js';
import { sendError } from '../../../platform/errors/error-body.js';
import { REDIS } from '../../../platform/redis/redis.module.js';

type Limiter = RateLimiterRedis | RateLimiterMemory;

/** Bounds the memo of refused subjects: a flood of random addresses evicts the oldest. */
const MAX_REMEMBERED = 10_000;

export type AuthRefusal =
  | 'invalid_key'
  | 'expired_key'
  | 'bad_password'
  | 'address_throttled'
  | 'password_throttled'
  | 'password_busy';

/**
 * Counts failed authentications in Redis (rate-limiter-flexible), so every API process shares
 * one count per client address, API key and account. Each limiter falls back to an in-process
 * count while Redis is away (its insurance limiter): an outage weakens the limits to per
 * process, never switches them off, and never fails a request.
 *
 * A subject found over its limit is also remembered in this process until its window ends, so
 * the refusals that follow cost a map lookup: no Redis, no MySQL, no hashing.
 */
@Injectable()
export class AuthThrottle {
  private readonly byAddress: Limiter;
  private readonly byKey: Limiter;
  private readonly byAccount: Limiter;
  private readonly refusedUntil = new Map<string, number>();
  private readonly delayMs: number;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    // Both always provided by the app; left out only by unit tests, which count in memory.
    @Inject(REDIS) redis?: Redis,
    @Inject(MetricsService) private readonly metrics?: MetricsService,
  ) {
    const prefix = `${config.queuePrefix}:authfail`;
    const t = config.authThrottle;
    this.delayMs = t.refusalDelayMs;
    this.byAddress = limiter(redis, `${prefix}:addr`, t.failuresPerAddress);
    this.byKey = limiter(redis, `${prefix}:key`, t.passwordFailuresPerKey);
    this.byAccount = limiter(redis, `${prefix}:acct`, t.passwordFailuresPerAccount);
  }

  refused(reason: AuthRefusal): void {
    this.metrics?.authRefused(reason);
  }

  /**
   * Null when the address may go on; when this process has seen it go over its failure limit, a
   * promise that rejects with the 429. Memory only, and no promise for an address that may go
   * on: it runs before the key lookup on every request. The 429 comes after
   * THROTTLE_REFUSAL_DELAY_MS (a timer, no CPU): a client that retries the moment it is refused
   * then gets a few answers a second per connection instead of thousands, each of which other
   * tenants would wait behind.
   */
  checkAddress(ip: string | undefined): Promise<never> | null {
    const refusal = this.addressRefusal(ip);
    if (!refusal) return null;
    return this.pause().then(() => {
      throw refusal;
    });
  }

  /**
   * checkAddress as the first Express middleware of the API routes: an address over its limit
   * is answered before access logging, body parsing and routing.
   */
  addressGate(): RequestHandler {
    return (req, res, next) => {
      const refusal = req.path.startsWith('/api/') ? this.addressRefusal(req.ip) : null;
      if (!refusal) return next();
      void this.pause().then(() =>
        sendError(req, res, refusal.status, refusal.code, refusal.message, refusal.details, refusal.headers),
      );
    };
  }

  private addressRefusal(ip: string | undefined): AppException | null {
    const ms = this.remembered(`addr:${ip ?? ''}`);
    if (ms <= 0) return null;
    this.refused('address_throttled');
    return tooMany('Too many failed authentications from this address', ms);
  }

  private pause(): Promise<void> {
    return holdRefusal(this.delayMs);
  }

  /** Counts a failed authentication against the client address. */
  async addressFailed(ip: string | undefined): Promise<void> {
    await this.count(this.byAddress, `addr:${ip ?? ''}`, ip ?? '');
  }

  /**
   * Throws 429 when the key or its account is over its limit of wrong passwords. Runs before
   * any hashing; asks Redis (the count is shared) unless this process already knows. The
   * answer is held like checkAddress's.
   */
  async checkPassword(keyId: string, accountId: string, ip: string | undefined): Promise<void> {
    let ms = Math.max(this.remembered(`key:${keyId}`), this.remembered(`acct:${accountId}`));
    if (ms <= 0) {
      const [k, a] = await Promise.all([this.over(this.byKey, keyId), this.over(this.byAccount, accountId)]);
      ms = Math.max(k, a);
    }
    if (ms > 0) {
      this.refused('password_throttled');
      // Still a failed authentication: an address that keeps trying is soon refused at the door.
      await this.addressFailed(ip);
      await this.pause();
      throw tooMany('Too many wrong passwords for this API key or account', ms);
    }
  }

  /** Counts a wrong username/password against the key, its account and the client address. */
  async passwordFailed(keyId: string, accountId: string, ip: string | undefined): Promise<void> {
    await Promise.all([
      this.count(this.byKey, `key:${keyId}`, keyId),
      this.count(this.byAccount, `acct:${accountId}`, accountId),
      this.addressFailed(ip),
    ]);
  }

  private async over(l: Limiter, key: string): Promise<number> {
    const res = await l.get(key).catch(() => null);
    return res && res.consumedPoints >= l.points ? Math.max(1, res.msBeforeNext) : 0;
  }

  /** Consumes a point; when the subject has now used up its limit, remembers it until the window ends. */
  private async count(l: Limiter, memo: string, key: string): Promise<void> {
    let res: RateLimiterRes;
    try {
      res = await l.consume(key);
    } catch (rejected) {
      if (!(rejected instanceof RateLimiterRes)) return;
      res = rejected;
    }
    if (res.consumedPoints >= l.points) this.remember(memo, res.msBeforeNext);
  }

  private remembered(memo: string): number {
    const until = this.refusedUntil.get(memo);
    if (until === undefined) return 0;
    const ms = until - Date.now();
    if (ms > 0) return ms;
    this.refusedUntil.delete(memo);
    return 0;
  }

  private remember(memo: string, ms: number): void {
    if (ms <= 0) return;
    if (this.refusedUntil.size >= MAX_REMEMBERED && !this.refusedUntil.has(memo)) {
      const oldest = this.refusedUntil.keys().next();
      if (!oldest.done) this.refusedUntil.delete(oldest.value);
    }
    this.refusedUntil.set(memo, Date.now() + ms);
  }
}

/**
 * Waits before a throttle's 429 is sent (THROTTLE_REFUSAL_DELAY_MS), spread over 0.5-1.5× the
 * delay: answers held and released all at once would come back as one burst of requests.
 */
export function holdRefusal(delayMs: number): Promise<void> {
  if (delayMs <= 0) return Promise.resolve();
  return new Promise((resolve) => setTimeout(resolve, Math.round(delayMs * (0.5 + Math.random()))));
}

function limiter(redis: Redis | undefined, keyPrefix: string, rate: RateLimit): Limiter {
  const opts = {
    keyPrefix,
    points: rate.limit,
    duration: rate.windowSeconds,
    blockDuration: rate.windowSeconds,
  };
  const memory = new RateLimiterMemory(opts);
  return redis ? new RateLimiterRedis({ ...opts, storeClient: redis, insuranceLimiter: memory }) : memory;
}

function tooMany(what: string, ms: number): AppException {
  const retryAfter = String(Math.max(1, Math.ceil(ms / 1000)));
  return new AppException('RATE_LIMITED', `${what}; retry after ${retryAfter} s.`, [], {
    'Retry-After': retryAfter,
  });
}
