import { createHmac, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import argon2 from 'argon2';
import type { AuthContext } from './auth-context.js';
import { AuthThrottle } from './auth-throttle.js';
import { AppException } from '../../../platform/errors/app.exception.js';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { passwordTag } from '../api-keys.service.js';
import { AccountsService } from '../../accounts/accounts.service.js';
import { familyRoot } from '../../accounts/family.js';

const MAX_REMEMBERED = 10_000;

interface Remembered {
  until: number;
  /** The account's password tag when the check succeeded; a changed password no longer matches. */
  tag: string;
}

/**
 * The body `username` / `password` check of the chat and balance routes, made cheap and fair.
 * argon2 costs about 200 ms of a libuv thread per check, and libuv has four: unbounded, one key
 * sending wrong passwords would hold every request that needs a thread (and its own tenant's
 * correct ones) in a queue of seconds. So, in this order:
 *
 * 1. A pair that verified recently for this key is remembered (by a keyed digest of key,
 *    username and password, never the password) while the account's password is unchanged.
 * 2. Identical checks already under way are joined, not repeated.
 * 3. A key or account over its limit of wrong passwords gets 429 with Retry-After, before any
 *    hashing (AuthThrottle, counted in Redis across processes).
 * 4. At most one check per key and `PASSWORD_CHECK_CONCURRENCY` checks in all run at once in this
 *    process; beyond that the answer is an immediate 429 with Retry-After: 1, never a wait.
 */
@Injectable()
export class CredentialCheck {
  private readonly remembered = new Map<string, Remembered>();
  private readonly pending = new Map<string, Promise<boolean>>();
  private readonly keysChecking = new Set<string>();
  private running = 0;
  private readonly digestKey = randomBytes(32);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly accounts: AccountsService,
    private readonly throttle: AuthThrottle,
  ) {}

  /**
   * Resolves when `username` / `password` are those of the key's own account. A wrong password
   * and a foreign account get the same answer, so the route cannot be used to probe usernames.
   */
  async verify(
    auth: AuthContext,
    username: unknown,
    password: unknown,
    // Kept for the callers; a wrong password is counted against the key and account, not the address.
    _ip?: string,
  ): Promise<void> {
    if (typeof username !== 'string' || typeof password !== 'string' || !username || !password) {
      throw AppException.validation(
        [
          ...(typeof username === 'string' && username
            ? []
            : [{ field: 'username', message: 'username is required' }]),
          ...(typeof password === 'string' && password
            ? []
            : [{ field: 'password', message: 'password is required' }]),
        ],
        'username and password are required.',
      );
    }
    const digest = createHmac('sha256', this.digestKey)
      .update(`${auth.key.id}\0${username}\0${password}`)
      .digest('base64');
    const hit = this.remembered.get(digest);
    if (hit && hit.until > Date.now() && hit.tag === auth.passwordTag) return;
    if (hit) this.remembered.delete(digest);
    let check = this.pending.get(digest);
    if (!check) {
      check = this.check(auth, username, password, digest).finally(() => this.pending.delete(digest));
      this.pending.set(digest, check);
    }
    if (!(await check)) {
      throw new AppException('INVALID_CREDENTIALS', 'The username and password do not match this API key.');
    }
  }

  private async check(
    auth: AuthContext,
    username: string,
    password: string,
    digest: string,
  ): Promise<boolean> {
    const keyId = auth.key.id;
    const accountId = auth.account.id;
    // The account budget is the family's: sub-accounts' keys cannot add guesses of their own.
    const family = familyRoot(auth.account);
    await this.throttle.checkPassword(keyId, family);
    if (this.keysChecking.has(keyId) || this.running >= this.config.authThrottle.passwordCheckConcurrency) {
      this.throttle.refused('password_busy');
      throw new AppException('RATE_LIMITED', 'Too many password checks are under way; retry after 1 s.', [], {
        'Retry-After': '1',
      });
    }
    this.keysChecking.add(keyId);
    this.running++;
    let row: { username: string; passwordHash: string } | null;
    let ok: boolean;
    try {
      row = await this.accounts.credentials(accountId);
      ok =
        !!row &&
        row.username === username &&
        (await argon2.verify(row.passwordHash, password).catch(() => false));
    } finally {
      this.keysChecking.delete(keyId);
      this.running--;
    }
    if (!ok || !row) {
      this.throttle.refused('bad_password');
      await this.throttle.passwordFailed(keyId, family);
      return false;
    }
    this.remember(digest, passwordTag(row.passwordHash));
    return true;
  }

  private remember(digest: string, tag: string): void {
    const ttl = this.config.authThrottle.passwordCacheMs;
    if (ttl <= 0) return;
    if (this.remembered.size >= MAX_REMEMBERED) {
      const oldest = this.remembered.keys().next();
      if (!oldest.done) this.remembered.delete(oldest.value);
    }
    this.remembered.set(digest, { until: Date.now() + ttl, tag });
  }
}
