import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiKeysService, type ResolvedKey } from '../api-keys.service.js';
import { LastUsedTracker } from '../last-used.tracker.js';
import { AppException } from '../../../platform/errors/app.exception.js';
import type { AuthedRequest } from './auth-context.js';
import { AuthThrottle } from './auth-throttle.service.js';
import { CredentialCheck } from './credential-check.service.js';
import { AmbiguousCredentials, extractApiKey } from './extract-api-key.js';
import { IS_PUBLIC } from '../../../platform/http/public.decorator.js';
import { declareRequestFields } from '../../../platform/http/message-shape.js';

declareRequestFields('auth');

/**
 * Bearer only, although Basic is still accepted: a browser shows its login prompt for a Basic
 * challenge and, once a user has typed the key there, replays it on cross-site requests.
 */
const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="bulk-messaging"' };
const INVALID = { 'WWW-Authenticate': 'Bearer realm="bulk-messaging", error="invalid_token"' };

/**
 * First guard of the chain (api key → IpAllowGuard → KeyRateLimitGuard, registered in that order
 * by AuthModule): every route not marked @Public() needs a live API key. The lookup is cached
 * for at most a second (api-key.cache.ts); revocation, expiry and account status are judged
 * here on every request, from the cached row, so an expiry takes effect at its exact time.
 *
 * A key that fails counts against the client address, and the address with that key
 * (AuthThrottle); over either limit, its requests are refused. A valid key is judged by the key
 * alone, whatever its address has done.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly keys: ApiKeysService,
    private readonly lastUsed: LastUsedTracker,
    private readonly throttle: AuthThrottle,
    private readonly credentials: CredentialCheck,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [ctx.getHandler(), ctx.getClass()])) return true;
    const req = ctx.switchToHttp().getRequest<AuthedRequest>();
    let presented: string | undefined;
    try {
      presented = extractApiKey(req.headers);
    } catch (err) {
      if (!(err instanceof AmbiguousCredentials)) throw err;
      throw await this.failed(
        req,
        undefined,
        'invalid_key',
        new AppException('INVALID_API_KEY', err.message, [], INVALID),
      );
    }
    if (!presented) {
      throw new AppException(
        'MISSING_API_KEY',
        'An API key is required (X-API-Key, Bearer or Basic).',
        [],
        CHALLENGE,
      );
    }
    let found: ResolvedKey | null = null;
    if (presented.length <= 256) {
      const known = this.keys.resolve(presented);
      found = known instanceof Promise ? await known : known;
    }
    if (!found || found.key.revokedAt) {
      throw await this.failed(
        req,
        presented,
        'invalid_key',
        new AppException('INVALID_API_KEY', 'The API key is not valid.', [], INVALID),
      );
    }
    if (found.key.expiresAt && found.key.expiresAt.getTime() <= Date.now()) {
      throw await this.failed(
        req,
        presented,
        'expired_key',
        new AppException('API_KEY_EXPIRED', 'The API key has expired.', [], {
          'WWW-Authenticate':
            'Bearer realm="bulk-messaging", error="invalid_token", error_description="expired"',
        }),
      );
    }
    if (found.account.status !== 'active') {
      // Once active again, it proves its password anew.
      this.credentials.forgetAccount(found.account.id);
      throw new AppException('ACCOUNT_SUSPENDED', 'The account is suspended.');
    }
    if (found.parent && found.parent.status !== 'active') {
      this.credentials.forgetAccount(found.account.id);
      throw new AppException(
        'ACCOUNT_SUSPENDED',
        'The account is suspended: its parent account is suspended.',
      );
    }
    req.auth = found;
    this.lastUsed.touch(found.key.id);
    return true;
  }

  /**
   * A failed key is 401, counted against the address (and the address with that key); once
   * either is over its limit, 429 instead, uncounted.
   */
  private async failed(
    req: AuthedRequest,
    presented: string | undefined,
    reason: 'invalid_key' | 'expired_key',
    err: AppException,
  ): Promise<AppException> {
    await this.throttle.refuseFailedKey(req.ip, presented);
    this.throttle.refused(reason);
    await this.throttle.keyFailed(req.ip, presented);
    return err;
  }
}
