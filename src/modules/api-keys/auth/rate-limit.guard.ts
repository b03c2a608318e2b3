import { Inject, Injectable, Logger, SetMetadata, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  type ThrottlerRequest,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import type { Response } from 'express';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { AppException } from '../../../platform/errors/app.exception.js';
import type { AuthedRequest } from './auth-context.js';
import { holdRefusal } from './auth-throttle.service.js';
import { KEY_THROTTLER, limitFor } from './rate-limit.js';
import { IS_PUBLIC } from '../../../platform/http/public.decorator.js';
import { bodyBytes, loadBody, lowerBodyLimit } from '../../../platform/http/body-reader.js';

const WEIGHED_BY_RECIPIENTS = 'rate-limit:weighed-by-recipients';

/**
 * A route that counts against the key's rate limit by the recipients its body names (`to` or
 * `recipient`): one request per PREVIEW_RECIPIENTS_PER_REQUEST of them, started. For previews,
 * whose work grows with the recipients but which send, store and charge nothing.
 */
export const RateLimitByRecipients = () => SetMetadata(WEIGHED_BY_RECIPIENTS, true);

/** How many recipients a send body names: the longer of `to` and `recipient` (a string is one). */
function recipientsNamed(body: unknown): number {
  if (typeof body !== 'object' || body === null) return 0;
  const count = (v: unknown) => (Array.isArray(v) ? v.length : v === undefined || v === null ? 0 : 1);
  const b = body as Record<string, unknown>;
  return Math.max(count(b.to), count(b.recipient));
}

/**
 * Third guard of the chain: the key's own limit (rate_limit per rate_window_seconds) or the
 * configured default, counted in Redis so every API process shares one count per key. Every
 * request that gets this far is answered with RateLimit-Limit, RateLimit-Remaining and
 * RateLimit-Reset (seconds), errors included. A request with a body counts once per started
 * RATE_LIMIT_BODY_KB of it: reading and parsing cost by the byte, and counting requests alone let
 * one key's big bodies stall every other key. Over the limit: 429 RATE_LIMITED with
 * Retry-After. A key that goes over is refused for one whole window from that moment (the
 * storage's block), which is what Retry-After says.
 *
 * Fails open: when Redis cannot answer, the request is not limited (and carries no RateLimit
 * headers) rather than refused; the outage is logged once and its end once. A limiter exists
 * to protect the service, and refusing every request because its counter is away would turn a
 * Redis hiccup into a full outage.
 *
 * The 429 is held for THROTTLE_REFUSAL_DELAY_MS before it is sent (a timer, no CPU): a client
 * that retries the moment it is refused would otherwise get thousands of answers a second,
 * and every other tenant's request would wait behind them.
 */
@Injectable()
export class KeyRateLimitGuard extends ThrottlerGuard {
  private readonly log = new Logger('RateLimit');
  private degraded = false;
  /** How many requests the one under way counts as (1, or more for a big body or a route weighed by recipients). */
  private readonly weight = new WeakMap<ExecutionContext, number>();

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super(options, storage, reflector);
  }

  /**
   * The one throttler, without ThrottlerGuard's per-route lookups (no route sets a throttle of
   * its own): its limit and window come from the calling key, the block lasts one window.
   */
  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.skips(context)) return true;
    const req = context.switchToHttp().getRequest<AuthedRequest>();
    // A test key names at most TEST_MAX_RECIPIENTS: its bodies are limited to fit those.
    if (req.auth!.key.mode === 'test') lowerBodyLimit(req, this.config.http.testBodyLimits);
    // A body counts once per started RATE_LIMIT_BODY_KB, known from its Content-Length before a
    // byte of it is read: a key that floods big bodies is refused before they are read or
    // parsed. One body counts at most the whole limit, so the largest legal send still passes.
    const { limit } = limitFor(context, this.config);
    const bytes = await bodyBytes(req);
    const byBytes = Math.min(limit, Math.max(1, Math.ceil(bytes / this.config.rateLimitBodyBytes)));
    await this.count(context, byBytes);
    if (this.reflector.get<boolean>(WEIGHED_BY_RECIPIENTS, context.getHandler())) {
      await loadBody(req);
      const named = recipientsNamed(req.body);
      const byRecipients = Math.ceil(named / this.config.previewRecipientsPerRequest);
      if (byRecipients > byBytes) await this.count(context, byRecipients - byBytes);
    }
    return true;
  }

  /** Counts `hits` requests against the calling key's limit; 429 when that goes over. */
  private count(context: ExecutionContext, hits: number): Promise<boolean> {
    const { limit, windowSeconds } = limitFor(context, this.config);
    const ttl = windowSeconds * 1000;
    this.weight.set(context, hits);
    return this.handleRequest({
      context,
      limit,
      ttl,
      blockDuration: ttl,
      throttler: this.throttlers[0]!,
      getTracker: this.commonOptions.getTracker!,
      generateKey: this.commonOptions.generateKey!,
    });
  }

  protected override shouldSkip(ctx: ExecutionContext): Promise<boolean> {
    return Promise.resolve(this.skips(ctx));
  }

  /** shouldSkip without its promise: it runs on every request. */
  private skips(ctx: ExecutionContext): boolean {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [ctx.getHandler(), ctx.getClass()])) return true;
    return !ctx.switchToHttp().getRequest<AuthedRequest>().auth;
  }

  protected override async handleRequest({
    context,
    limit,
    ttl,
    blockDuration,
    throttler,
  }: ThrottlerRequest): Promise<boolean> {
    const req = context.switchToHttp().getRequest<AuthedRequest>();
    const res = context.switchToHttp().getResponse<Response>();
    // Per key, not per route; the window is part of the name so a changed limit starts a fresh count.
    const key = `key:${req.auth!.key.id}:${ttl}`;
    let record;
    try {
      const name = throttler.name ?? KEY_THROTTLER;
      const hits = this.weight.get(context) ?? 1;
      if (hits === 1) record = await this.storageService.increment(key, ttl, limit, blockDuration, name);
      else {
        // A weighed request adds its hits at once (the storage counts them in one round trip):
        // refused if any of them went over, else the count after all of them.
        const records = await Promise.all(
          Array.from({ length: hits }, () =>
            this.storageService.increment(key, ttl, limit, blockDuration, name),
          ),
        );
        record =
          records.find((r) => r.isBlocked) ?? records.reduce((a, b) => (b.totalHits > a.totalHits ? b : a));
      }
    } catch (err) {
      if (!this.degraded) {
        this.log.warn(
          `rate limiter unavailable, requests are not limited until Redis answers: ${(err as Error).message}`,
        );
      }
      this.degraded = true;
      return true;
    }
    if (this.degraded) this.log.log('rate limiter available again');
    this.degraded = false;
    const { totalHits, timeToExpire, isBlocked, timeToBlockExpire } = record;
    const reset = isBlocked ? Math.max(timeToExpire, timeToBlockExpire) : timeToExpire;
    res.setHeader('RateLimit-Limit', String(limit));
    res.setHeader('RateLimit-Remaining', String(isBlocked ? 0 : Math.max(0, limit - totalHits)));
    res.setHeader('RateLimit-Reset', String(Math.max(0, reset)));
    if (isBlocked) {
      await holdRefusal(this.config.authThrottle.refusalDelayMs);
      const retryAfter = String(Math.max(1, timeToBlockExpire));
      throw new AppException(
        'RATE_LIMITED',
        `Rate limit of ${limit} requests per ${Math.round(ttl / 1000)} s exceeded for this API key (a body counts once per started ${Math.round(this.config.rateLimitBodyBytes / 1024)} KB of it); retry after ${retryAfter} s.`,
        [],
        { 'Retry-After': retryAfter },
      );
    }
    return true;
  }
}
