import { Inject, Injectable } from '@nestjs/common';
import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { APP_CONFIG, type AppConfig, type RateLimit } from '../../../config/config.js';
import { AppException } from '../../../platform/errors/app.exception.js';
import { sendError } from '../../../platform/errors/error-body.js';
import { REDIS } from '../../../platform/redis/redis.module.js';
import type { ResolvedKey } from '../api-keys.service.js';
import type { ApiKeyCache } from '../api-key.cache.js';
import { hasKeyShape, hashApiKey } from '../api-key.util.js';
import { AuthMetrics } from './auth.metrics.js';
import { extractApiKey } from './extract-api-key.js';

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
 * one count per client address (and address with presented key) for keys that fail, and per
 * API key and account for wrong passwords. Each limiter falls back to an in-process
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
  private readonly byAddressAndKey: Limiter;
  private readonly refusedUntil = new Map<string, number>();
  private readonly delayMs: number;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    // Both always provided by the app; left out only by unit tests, which count in memory.
    @Inject(REDIS) redis?: Redis,
    @Inject(AuthMetrics) private readonly metrics?: AuthMetrics,
  ) {
    const prefix = `${config.queuePrefix}:authfail`;
    const t = config.authThrottle;
    this.delayMs = t.refusalDelayMs;
    this.byAddress = limiter(redis, `${prefix}:addr`, t.failuresPerAddress);
    this.byKey = limiter(redis, `${prefix}:key`, t.passwordFailuresPerKey);
    this.byAccount = limiter(redis, `${prefix}:acct`, t.passwordFailuresPerAccount);
    this.byAddressAndKey = limiter(redis, `${prefix}:addrkey`, t.failuresPerAddressAndKey);
  }

  refused(reason: AuthRefusal): void {
    this.metrics?.refused(reason);
  }

  /**
   * The first Express middleware of the API routes: a request that can be refused from memory
   * is answered before access logging, body parsing and routing. That is a request whose key
   * this address has failed with too often, or one from an address over its limit that presents
   * no key, an ambiguous one, a key of the wrong shape, or one this process already knows to be
   * unknown. A key known to
   * be valid always passes, and one not yet looked up goes on to the guard: an address is never
   * a reason to refuse a valid key, so one client behind a shared address (NAT, corporate
   * egress, an integration platform) cannot lock out the others.
   *
   * It asks the key cache what it knows of a presented key without a lookup (the key, null when
   * known to be unknown, undefined when it must be read), and not as a hit or a miss: the guard's
   * own lookup follows and is the one counted.
   */
  addressGate(keys: Pick<ApiKeyCache, 'peek'>): RequestHandler {
    return (req, res, next) => {
      if (!req.path.startsWith('/api/')) return next();
      let presented: string | undefined;
      let ambiguous = false;
      try {
        presented = extractApiKey(req.headers);
      } catch {
        ambiguous = true;
      }
      // A key of the wrong shape is unknown for certain: no lookup needed to refuse it.
      const known =
        presented === undefined || ambiguous || !hasKeyShape(presented)
          ? null
          : keys.peek(hashApiKey(presented), false);
      // Not yet looked up: the guard reads it, and refuses it only if it proves unknown.
      const refusal =
        known === undefined || (known && usable(known)) ? null : this.keyRefusal(req.ip, presented);
      if (!refusal) return next();
      void this.pause().then(() =>
        sendError(req, res, refusal.status, refusal.code, refusal.message, refusal.details, refusal.headers),
      );
    };
  }

  /**
   * The 429 for a request whose key failed (unknown, revoked, expired, ambiguous) when this
   * address has failed too often, with that key or in all; null when it may be told 401. Memory
   * only; the answer is held like every throttle's.
   */
  async refuseFailedKey(ip: string | undefined, presented: string | undefined): Promise<void> {
    const refusal = this.keyRefusal(ip, presented);
    if (!refusal) return;
    await this.pause();
    throw refusal;
  }

  private keyRefusal(ip: string | undefined, presented: string | undefined): AppException | null {
    const pair = presented === undefined ? 0 : this.remembered(pairMemo(ip, presented));
    const ms = Math.max(pair, this.remembered(`addr:${ip ?? ''}`));
    if (ms <= 0) return null;
    this.refused('address_throttled');
    return tooMany('Too many failed authentications from this address', ms);
  }

  private pause(): Promise<void> {
    return holdRefusal(this.delayMs);
  }

  /**
   * Counts a failed key (unknown, revoked, expired, ambiguous) against the client address, and
   * against the address and the key it presented together.
   */
  async keyFailed(ip: string | undefined, presented: string | undefined): Promise<void> {
    const addr = ip ?? '';
    const pair = presented === undefined ? null : pairMemo(ip, presented);
    await Promise.all([
      this.count(this.byAddress, `addr:${addr}`, addr),
      pair ? this.count(this.byAddressAndKey, pair, pair.slice(3)) : undefined,
    ]);
  }

  /**
   * Throws 429 when the key or its account is over its limit of wrong passwords. Runs before
   * any hashing; asks Redis (the count is shared) unless this process already knows. The
   * answer is held like checkAddress's.
   */
  async checkPassword(keyId: string, accountId: string): Promise<void> {
    let ms = this.passwordRefusedMs(keyId, accountId);
    if (ms <= 0) {
      const [k, a] = await Promise.all([this.over(this.byKey, keyId), this.over(this.byAccount, accountId)]);
      ms = Math.max(k, a);
    }
    await this.refusePassword(ms);
  }

  /**
   * checkPassword from what this process knows alone: for a check that waited its turn, since
   * the failures counted meanwhile in this process are remembered as they reach the limit.
   */
  async checkPasswordInMemory(keyId: string, accountId: string): Promise<void> {
    await this.refusePassword(this.passwordRefusedMs(keyId, accountId));
  }

  /** How long this process knows the key or account to be over its wrong-password limit (0: not). */
  passwordRefusedMs(keyId: string, accountId: string): number {
    return Math.max(this.remembered(`key:${keyId}`), this.remembered(`acct:${accountId}`));
  }

  private async refusePassword(ms: number): Promise<void> {
    if (ms > 0) {
      this.refused('password_throttled');
      await this.pause();
      throw tooMany('Too many wrong passwords for this API key or account', ms);
    }
  }

  /**
   * Counts a wrong username/password against the key and its account, never the client address:
   * the key was valid, so the request is judged by it, and another tenant at the same address
   * is not touched.
   */
  async passwordFailed(keyId: string, accountId: string): Promise<void> {
    await Promise.all([
      this.count(this.byKey, `key:${keyId}`, keyId),
      this.count(this.byAccount, `acct:${accountId}`, accountId),
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

/** A key the cache holds that the guard will accept (its account's status is the guard's to judge). */
function usable(found: ResolvedKey | null | undefined): boolean {
  if (!found || found.key.revokedAt) return false;
  return !found.key.expiresAt || found.key.expiresAt.getTime() > Date.now();
}

/** The memo (and, after its prefix, the count) of one address with one presented key, by the key's digest. */
function pairMemo(ip: string | undefined, presented: string): string {
  return `ak:${ip ?? ''}|${hashApiKey(presented).toString('base64url')}`;
}
