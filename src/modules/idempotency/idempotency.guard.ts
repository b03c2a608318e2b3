import { Inject, Injectable, Logger, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { AppException } from '../../platform/errors/app.exception.js';
import { PreparedAnswer } from '../../platform/errors/prepared-answer.js';
import { authOf, type AuthedRequest } from '../api-keys/auth/auth-context.js';
import { idempotencyFingerprint } from './fingerprint.js';
import { IdempotencyStore, type Claim, type StoredAnswer } from './idempotency.store.js';
import { SECRET_ANSWER, type SecretAnswer } from './secret-answer.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** 1 to 255 printable ASCII characters (space included, as the header's value carries it). */
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;
/**
 * How long a request holds its key before another may take it over, should its process have
 * died: well above the slowest creating request (a 100,000-recipient send takes seconds). A
 * request that outlives it anyway cannot make a send twice: the send's transaction ties the
 * key to the send (linkSendStatement) and a second attempt finds it tied.
 */
const LEASE_SECONDS = 60;

/** The key each request holds, for the send pipeline to tie its send to (see claimOf). */
const claims = new WeakMap<object, Claim>();

/** The key the request holds, if it came with an Idempotency-Key. */
export function claimOf(req: object): Claim | undefined {
  return claims.get(req);
}

/**
 * The Idempotency-Key of a creating POST (route decorator `Idempotent`), after the key, address
 * and rate-limit guards. Without the header it returns at once, synchronously: the send path
 * pays one header lookup. With it: the same key of the same account (and mode) and the same
 * route and body answers the first answer again (status and body, `Idempotent-Replayed:
 * true`), nothing done twice; another body is 422 IDEMPOTENCY_KEY_REUSED; a first request still
 * running is 409 REQUEST_IN_PROGRESS. Only a 2xx answer is kept: an error means nothing was
 * created, and the key is free again for a retry once the cause is fixed.
 */
@Injectable()
export class IdempotencyGuard implements CanActivate {
  private readonly log = new Logger('Idempotency');

  constructor(
    private readonly store: IdempotencyStore,
    private readonly reflector: Reflector,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  canActivate(ctx: ExecutionContext): boolean | Promise<boolean> {
    const req = ctx.switchToHttp().getRequest<AuthedRequest>();
    const key = req.headers[IDEMPOTENCY_HEADER];
    if (key === undefined) return true;
    if (typeof key !== 'string' || !VALID_KEY.test(key)) {
      throw AppException.validation(
        [{ field: 'Idempotency-Key', message: '1 to 255 printable ASCII characters' }],
        'The Idempotency-Key header must be 1 to 255 printable ASCII characters.',
      );
    }
    const secret = this.reflector.get<SecretAnswer | undefined>(SECRET_ANSWER, ctx.getHandler());
    return this.claim(req, ctx.switchToHttp().getResponse<Response>(), key, secret);
  }

  private async claim(
    req: AuthedRequest,
    res: Response,
    key: string,
    secret: SecretAnswer | undefined,
  ): Promise<boolean> {
    const auth = authOf(req);
    const scope = { accountId: auth.account.id, testMode: auth.key.mode === 'test' };
    const fingerprint = idempotencyFingerprint(
      this.config.serverSecret,
      req.method,
      req.originalUrl,
      req.body,
    );
    const result = await this.store.claim(scope, key, fingerprint, LEASE_SECONDS);
    switch (result.kind) {
      case 'claimed':
        claims.set(req, result.claim);
        this.keepAnswer(res, result.claim, secret);
        return true;
      case 'replay':
        if (secret?.replay) throw secretShownOnce(secret.replay, result.answer);
        throw new PreparedAnswer(result.answer.status, result.answer.contentType, result.answer.body, {
          'Idempotent-Replayed': 'true',
        });
      case 'other-body':
        throw new AppException(
          'IDEMPOTENCY_KEY_REUSED',
          'This Idempotency-Key was already used with another request body (or on another route) in the last 24 hours; use a new key for a new request.',
          [{ field: 'Idempotency-Key', message: 'already used with another body' }],
        );
      case 'in-progress':
        throw new AppException(
          'REQUEST_IN_PROGRESS',
          'A request with this Idempotency-Key is still being processed; retry once it has been answered.',
          [{ field: 'Idempotency-Key', message: 'in progress' }],
          { 'Retry-After': '1' },
        );
    }
  }

  /**
   * The answer is kept (2xx) or the key released (anything else) before the answer leaves, so a
   * retry that follows it at once finds it. Every answer, JSON (res.json calls res.send with
   * its text), XML or error, passes through res.send; only this response's is wrapped.
   */
  private keepAnswer(res: Response, claim: Claim, secret: SecretAnswer | undefined): void {
    const send = res.send;
    res.send = (body?: unknown) => {
      // res.send(object) comes back here as text through res.json.
      if (body !== undefined && typeof body === 'object' && !Buffer.isBuffer(body))
        return send.call(res, body);
      res.send = send;
      const answer: StoredAnswer = {
        status: res.statusCode,
        contentType: (res.getHeader('Content-Type') as string | undefined) ?? null,
        body: Buffer.isBuffer(body) ? body : Buffer.from(body === undefined ? '' : String(body)),
      };
      if (secret) answer.body = withoutSecret(answer.body, secret.field);
      const ok = answer.status >= 200 && answer.status < 300;
      (ok ? this.store.complete(claim, answer) : this.store.release(claim))
        .catch((err: Error) =>
          this.log.warn(`Idempotency-Key not ${ok ? 'kept' : 'released'}: ${err.message}`),
        )
        .finally(() => send.call(res, body));
      return res;
    };
  }
}

/** A JSON answer without its secret field: what is kept of an answer that carries a secret. */
function withoutSecret(body: Buffer, field: string): Buffer {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    delete parsed[field];
    return Buffer.from(JSON.stringify(parsed));
  } catch {
    // Not JSON (no such route answers otherwise): nothing of it is kept rather than the secret.
    return Buffer.alloc(0);
  }
}

/**
 * The replay of an answer that carried a secret: the secret was shown once and not kept, and the
 * rest of the first answer would be stale (a key since revoked would still read "active"), so
 * the replay is an error that says what the first request made and what to do.
 */
function secretShownOnce(replay: NonNullable<SecretAnswer['replay']>, answer: StoredAnswer): AppException {
  let first: Record<string, unknown> = {};
  try {
    first = JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    // An empty kept answer: the sentence names nothing of it.
  }
  return new AppException(
    'SECRET_SHOWN_ONCE',
    replay(first),
    [{ field: 'Idempotency-Key', message: 'already answered once, with a secret that is not kept' }],
    { 'Idempotent-Replayed': 'true' },
  );
}
