import { Inject, Injectable } from '@nestjs/common';
import argon2 from 'argon2';
import type { AuthContext } from './auth-context.js';
import { AuthMetrics } from './auth.metrics.js';
import { AuthThrottle, holdRefusal } from './auth-throttle.service.js';
import { VerifiedPasswords } from './verified-passwords.js';
import { AppException } from '../../../platform/errors/app.exception.js';
import { FairQueue, LaneFull } from '../../../platform/queueing/fair-queue.js';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { passwordTag } from '../api-keys.service.js';
import { AccountsService } from '../../accounts/accounts.service.js';
import { familyRoot } from '../../accounts/family.js';

/**
 * The body `username` / `password` check of the chat and balance routes, made cheap and fair
 * between tenants. argon2 costs 200-500 ms of a libuv thread per check, and libuv has four:
 * unbounded, one key sending wrong passwords would hold every request that needs a thread,
 * other tenants' correct ones included, in a queue of seconds. So, in this order:
 *
 * 1. A pair that verified recently for this account is remembered (VerifiedPasswords: a keyed
 *    digest, never the password) while the account's password is unchanged.
 * 2. Identical checks already under way are joined, not repeated.
 * 3. A key or account over its limit of wrong passwords gets 429 with Retry-After, before any
 *    hashing (AuthThrottle, counted in Redis across processes); asked again when the check's
 *    turn comes, so checks queued behind the failure that reached the limit hash nothing.
 * 4. The hashes run in a fair queue, one lane per account: `PASSWORD_CHECK_CONCURRENCY` at once
 *    in this process, one per account, the account served longest ago first; a lane holds at
 *    most `PASSWORD_CHECK_QUEUE_PER_ACCOUNT` checks, beyond which the answer is 429. One
 *    tenant's flood waits behind itself; another tenant's check waits for at most one hash.
 */
@Injectable()
export class CredentialCheck {
  private readonly verified: VerifiedPasswords;
  private readonly pending = new Map<string, Promise<boolean>>();
  private readonly queue: FairQueue;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly accounts: AccountsService,
    private readonly throttle: AuthThrottle,
    // Always provided by the app; left out only by unit tests.
    @Inject(AuthMetrics) private readonly metrics?: AuthMetrics,
  ) {
    const t = config.authThrottle;
    this.verified = new VerifiedPasswords(t.passwordCacheMs);
    this.queue = new FairQueue({
      concurrency: t.passwordCheckConcurrency,
      runningPerLane: 1,
      perLane: t.passwordCheckQueuePerAccount,
    });
  }

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
    const digest = this.verified.digest(auth.account.id, username, password);
    if (this.verified.has(digest, auth.passwordTag)) {
      this.metrics?.passwordChecked('remembered');
      return;
    }
    let check = this.pending.get(digest);
    if (!check) {
      check = this.check(auth, username, password, digest).finally(() => this.pending.delete(digest));
      this.pending.set(digest, check);
    }
    if (!(await check)) {
      throw new AppException('INVALID_CREDENTIALS', 'The username and password do not match this API key.');
    }
  }

  /** Voids the account's remembered checks: it was seen suspended. */
  forgetAccount(accountId: string): void {
    this.verified.forgetAccount(accountId);
  }

  private async check(
    auth: AuthContext,
    username: string,
    password: string,
    digest: string,
  ): Promise<boolean> {
    const keyId = auth.key.id;
    const accountId = auth.account.id;
    // The account budget and the hashing lane are the family's: a parent and its sub-accounts
    // are one tenant, so sub-accounts' keys add neither guesses nor lanes of their own.
    const family = familyRoot(auth.account);
    await this.throttled(() => this.throttle.checkPassword(keyId, family));
    let outcome: { row: { username: string; passwordHash: string } | null; ok: boolean } | 'throttled';
    try {
      outcome = await this.queue.run(family, async () => {
        // The failures counted while this check waited may have reached the limit. Refused
        // outside the queue: the held answer must not keep a hashing slot.
        if (this.throttle.passwordRefusedMs(keyId, family) > 0) return 'throttled' as const;
        const row = await this.accounts.credentials(accountId);
        const ok =
          !!row &&
          row.username === username &&
          (await argon2.verify(row.passwordHash, password).catch(() => false));
        // Counted before the lane's next check starts, so that one sees the limit reached.
        if (!ok) await this.throttle.passwordFailed(keyId, family);
        return { row, ok };
      });
    } catch (err) {
      if (!(err instanceof LaneFull)) throw err;
      this.metrics?.passwordChecked('queue_full');
      this.throttle.refused('password_busy');
      await holdRefusal(this.config.authThrottle.refusalDelayMs);
      throw new AppException(
        'RATE_LIMITED',
        'Too many password checks of this account are under way; retry after 1 s.',
        [],
        { 'Retry-After': '1' },
      );
    }
    if (outcome === 'throttled') {
      await this.throttled(() => this.throttle.checkPasswordInMemory(keyId, family));
      // The limit's window ended in the meantime: the check is simply not made.
      throw new AppException('RATE_LIMITED', 'Too many wrong passwords; retry after 1 s.', [], {
        'Retry-After': '1',
      });
    }
    const { row, ok } = outcome;
    if (!ok || !row) {
      this.metrics?.passwordChecked('wrong');
      this.throttle.refused('bad_password');
      return false;
    }
    this.metrics?.passwordChecked('verified');
    this.verified.add(digest, accountId, passwordTag(row.passwordHash));
    return true;
  }

  private async throttled(check: () => Promise<void>): Promise<void> {
    try {
      await check();
    } catch (err) {
      this.metrics?.passwordChecked('throttled');
      throw err;
    }
  }
}
