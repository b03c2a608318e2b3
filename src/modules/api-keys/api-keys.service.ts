import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, type RateLimit } from '../../config/config.js';
import { capped, ceilingOf, describeRate, exceeds, type RateCeiling } from './family-rate-limit.js';
import { CommandError } from '../../platform/cli/cli-errors.js';
import { IpAllowList } from './auth/ip-allow-list.js';
import type { Account } from '../accounts/account.entity.js';
import { AccountsService } from '../accounts/accounts.service.js';
import { ApiKeyStore } from './api-key.store.js';
import { ApiKeyCache } from './api-key.cache.js';
import { ApiKey, type KeyMode } from './api-key.entity.js';
import { parseAmount } from '../../platform/money/money.js';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key.util.js';
import type { ResolvedKey } from './resolved-key.js';

export type { ResolvedKey };

export class ApiKeyError extends CommandError {}

/** A sub-account key's rate limit above what its parent's keys allow. */
export class RateLimitAboveParent extends ApiKeyError {
  constructor(
    readonly asked: RateLimit,
    readonly ceiling: RateCeiling,
  ) {
    super(
      `rate limit ${describeRate(asked)} is above what the parent account's keys allow: at most ${ceiling.limit} requests per window and ${+ceiling.perSecond.toFixed(3)} per second`,
    );
  }
}

/** A key name is printed by the CLI: a control character in it could rewrite the operator's terminal. */
function checkName(raw: string): string {
  const name = raw.trim();
  if (!name || name.length > 100) throw new ApiKeyError('name must be 1-100 characters');
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(name))
    throw new ApiKeyError('name must not contain control characters');
  return name;
}

/** Zero or more, at most 6 decimal places (zero stops every charged send of the key). */
function checkDailyLimit(raw: string): string {
  const amount = parseAmount(String(raw).trim());
  if (amount === null)
    throw new ApiKeyError(
      'daily limit must be a decimal of zero or more with at most 6 decimal places, such as 50.00',
    );
  return amount;
}

export function passwordTag(passwordHash: string): string {
  return createHash('sha256').update(passwordHash).digest('base64url').slice(0, 22);
}

export interface CreateKeyInput {
  username: string;
  name: string;
  allowedIps?: string[];
  expiresAt?: Date | null;
  rateLimit?: { limit: number; windowSeconds: number } | null;
  /** Default `live`. Fixed for the key's life: rotation keeps it. */
  mode?: KeyMode;
  /** Most the key may spend per UTC day (decimal text, account currency); null: no limit. */
  dailyLimit?: string | null;
  /** The priority of the key's sends that name none (null: normal). */
  priority?: 'high' | 'normal' | null;
}

/** `undefined` leaves a field as it is; `null` clears it. */
export interface UpdateKeyInput {
  name?: string;
  allowedIps?: string[] | null;
  expiresAt?: Date | null;
  rateLimit?: { limit: number; windowSeconds: number } | null;
  dailyLimit?: string | null;
  priority?: 'high' | 'normal' | null;
}

@Injectable()
export class ApiKeysService {
  constructor(
    private readonly store: ApiKeyStore,
    private readonly accounts: AccountsService,
    private readonly cache: ApiKeyCache,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Returns the stored key and, once only, its secret. */
  async create(input: CreateKeyInput): Promise<{ apiKey: ApiKey; secret: string }> {
    const account = await this.accounts.findByUsername(input.username);
    if (!account) throw new ApiKeyError(`no account named ${input.username}`);
    // It would print as a working key yet be refused on every request.
    if (account.status !== 'active')
      throw new ApiKeyError(
        `account ${input.username} is ${account.status}: activate it before creating keys`,
      );
    if (account.parentId) {
      const parent = await this.requireAccount(account.parentId);
      if (parent.status !== 'active')
        throw new ApiKeyError(
          `the parent account ${parent.username} is ${parent.status}: activate it before creating keys`,
        );
      await this.checkFamilyRate(parent.id, input.rateLimit);
    }
    const name = checkName(input.name);
    if (input.expiresAt && input.expiresAt.getTime() <= Date.now())
      throw new ApiKeyError('expires-at is in the past');
    const mode = input.mode ?? 'live';
    const dailyLimit = input.dailyLimit == null ? null : checkDailyLimit(input.dailyLimit);
    const secret = generateApiKey(mode);
    const stored = await this.store.insert({
      accountId: account.id,
      name,
      keyHash: hashApiKey(secret),
      keyPrefix: displayPrefix(secret),
      mode,
      dailyLimit,
      allowedIps: input.allowedIps?.length ? input.allowedIps : null,
      expiresAt: input.expiresAt ?? null,
      rateLimit: input.rateLimit?.limit ?? null,
      rateWindowSeconds: input.rateLimit?.windowSeconds ?? null,
      priority: input.priority ?? null,
      revokedAt: null,
      lastUsedAt: null,
    });
    return { apiKey: stored, secret };
  }

  list(username?: string): Promise<Array<ApiKey & { username: string }>> {
    return this.store.list(username);
  }

  async get(id: string): Promise<ApiKey> {
    if (!/^\d{1,19}$/.test(id)) throw new ApiKeyError(`no key with id ${id}`);
    const key = await this.store.findById(id);
    if (!key) throw new ApiKeyError(`no key with id ${id}`);
    return key;
  }

  async revoke(id: string): Promise<ApiKey> {
    const key = await this.get(id);
    if (!key.revokedAt) {
      await this.store.updateLive(id, { revokedAt: new Date() });
      await this.onKeyChanged(id);
    }
    return this.get(id);
  }

  private async requireAccount(id: string): Promise<Account> {
    const account = await this.accounts.findById(id);
    if (!account) throw new ApiKeyError(`no account with id ${id}`);
    return account;
  }

  /**
   * What a sub-account's key may be allowed at most: the most generous of its parent's keys
   * (one without a rate limit has the default, RATE_LIMIT_DEFAULT).
   */
  async rateCeiling(parentId: string): Promise<RateCeiling> {
    return ceilingOf(await this.store.rateLimitsOf(parentId), this.config.defaultRateLimit);
  }

  /** Refuses a sub-account key's rate limit above its parent's keys' (none asked: the default, capped when read). */
  private async checkFamilyRate(parentId: string, asked: RateLimit | null | undefined): Promise<void> {
    if (!asked) return;
    const ceiling = await this.rateCeiling(parentId);
    if (exceeds(asked, ceiling)) throw new RateLimitAboveParent(asked, ceiling);
  }

  /**
   * Awaited after every change to a stored key (revoke, rotate, update): drops this process's
   * cached copy at once. Other processes (other API instances; the CLI changes keys from a
   * process of its own) see the change when their copy expires, within KEY_CACHE_TTL_MS.
   */
  async onKeyChanged(id: string): Promise<void> {
    this.cache.invalidateKey(id);
  }

  /** A key with its account's username, for display. */
  async describe(id: string): Promise<ApiKey & { username: string }> {
    const key = await this.get(id);
    const account = await this.requireAccount(key.accountId);
    return Object.assign(key, { username: account.username });
  }

  /**
   * Replaces a key's secret; the old one stops matching at once. A revoked key stays revoked:
   * rotating it would hand out a secret that can never work.
   */
  async rotate(id: string): Promise<{ apiKey: ApiKey; secret: string }> {
    const key = await this.get(id);
    if (key.revokedAt) throw new ApiKeyError(`key ${id} is revoked and cannot be rotated`);
    const secret = generateApiKey(key.mode);
    const rotated = await this.store.updateLive(id, {
      keyHash: hashApiKey(secret),
      keyPrefix: displayPrefix(secret),
    });
    if (!rotated) throw new ApiKeyError(`key ${id} is revoked and cannot be rotated`);
    await this.onKeyChanged(id);
    return { apiKey: await this.get(id), secret };
  }

  /**
   * Changes a key's name, allow list, expiry, rate limit or daily limit. `null` clears: no allow
   * list, no expiry, the default rate limit, no daily limit. The mode never changes. A revoked key is final and is not edited.
   */
  async update(id: string, input: UpdateKeyInput): Promise<ApiKey> {
    const key = await this.get(id);
    if (key.revokedAt) throw new ApiKeyError(`key ${id} is revoked and cannot be changed`);
    const changes: Partial<ApiKey> = {};
    if (input.name !== undefined) changes.name = checkName(input.name);
    if (input.allowedIps !== undefined)
      changes.allowedIps = input.allowedIps?.length ? input.allowedIps : null;
    if (input.expiresAt !== undefined) {
      if (input.expiresAt && input.expiresAt.getTime() <= Date.now())
        throw new ApiKeyError('expires-at is in the past');
      changes.expiresAt = input.expiresAt;
    }
    if (input.rateLimit !== undefined) {
      const account = await this.requireAccount(key.accountId);
      if (account.parentId) await this.checkFamilyRate(account.parentId, input.rateLimit);
      changes.rateLimit = input.rateLimit?.limit ?? null;
      changes.rateWindowSeconds = input.rateLimit?.windowSeconds ?? null;
    }
    if (input.dailyLimit !== undefined)
      changes.dailyLimit = input.dailyLimit === null ? null : checkDailyLimit(input.dailyLimit);
    if (input.priority !== undefined) changes.priority = input.priority;
    if (Object.keys(changes).length === 0) throw new ApiKeyError('nothing to change');
    await this.store.update(id, changes);
    await this.onKeyChanged(id);
    return this.get(id);
  }

  /**
   * Looks a presented key up by its hash, through the in-process cache (api-key.cache.ts): the
   * answer at once while the cache holds it (nearly every request; no promise,
   * docs/performance.md#promises), else a promise of its read; null when unknown. Revocation,
   * expiry and account status are the caller's to judge, per request.
   */
  resolve(presented: string): ResolvedKey | null | Promise<ResolvedKey | null> {
    const hash = hashApiKey(presented);
    const known = this.cache.peek(hash);
    return known !== undefined ? known : this.cache.get(hash, () => this.load(hash));
  }

  private async load(hash: Buffer): Promise<ResolvedKey | null> {
    const row = await this.store.findByHash(hash);
    // The index lookup already matched; the constant-time compare keeps the final check free of timing signal.
    if (!row || !timingSafeEqual(row.keyHash, hash)) return null;
    const { account: withHash, keyHash, ...key } = row;
    void keyHash;
    const { passwordHash, ...account } = withHash;
    const parent = account.parentId ? await this.accounts.findById(account.parentId) : null;
    if (parent) {
      // A sub-account's key never gets more than its parent's keys: one set higher before that
      // rule, or left at a default above them, or outlasting a parent's key, is capped here.
      const own =
        key.rateLimit && key.rateWindowSeconds
          ? { limit: key.rateLimit, windowSeconds: key.rateWindowSeconds }
          : this.config.defaultRateLimit;
      const rate = capped(own, await this.rateCeiling(parent.id));
      if (rate !== own) Object.assign(key, { rateLimit: rate.limit, rateWindowSeconds: rate.windowSeconds });
    }
    return {
      key: key as ApiKey,
      account: account as Account,
      allowList: IpAllowList.from(key.allowedIps),
      passwordTag: passwordTag(passwordHash),
      parent,
    };
  }
}
