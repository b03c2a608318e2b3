import { randomBytes, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import argon2 from 'argon2';
import { CommandError } from '../../platform/cli/cli-errors.js';
import { AccountStore } from './account.store.js';
import { CHANNELS } from './channel.js';
import { Account, type AccountSendWindow, type AccountStatus } from './account.entity.js';
import { passwordProblem } from './password-policy.js';

export const DEFAULT_PRICES = { sms: '0.250000', email: '0.050000', chat: '0.100000' } as const;

export class AccountError extends CommandError {}

/** The username belongs to another account already. */
export class UsernameTaken extends AccountError {
  constructor(readonly username: string) {
    super(`an account named ${username} already exists`);
  }
}

const USERNAME = /^[A-Za-z0-9._@-]{3,64}$/;
const MYSQL_DUP = 1062;
/** Not an argon2 hash: no password ever verifies against it (a sub-account until one is set). */
const NO_PASSWORD = '!';

function checkPassword(password: string, username: string): void {
  const problem = passwordProblem(password, username);
  if (problem) throw new AccountError(problem);
}

/** Bounds the memory of parents: past it the map is dropped and refilled on demand. */
const MAX_PARENTS = 100_000;

@Injectable()
export class AccountsService {
  /** Account id → its parent's id (null: none). Never stale: an account's parent is set once, at creation. */
  private readonly parents = new Map<string, string | null>();

  constructor(private readonly store: AccountStore) {}

  /**
   * Each account's parent id (null for a top-level account), remembered for good, read with
   * `em` (the caller's transaction) for those not yet known.
   */
  async parentsOf(ids: string[], em: EntityManager): Promise<Map<string, string | null>> {
    const unknown = [...new Set(ids)].filter((id) => !this.parents.has(id));
    if (unknown.length) {
      if (this.parents.size > MAX_PARENTS) this.parents.clear();
      for (const r of await this.store.parentsOf(em, unknown)) this.parents.set(r.id, r.parentId);
    }
    return new Map(ids.map((id) => [id, this.parents.get(id) ?? null]));
  }

  /**
   * Creates an account with a balance row per channel at the default price; with `parent`, a
   * sub-account of that account instead: in the parent's currency, paying the parent's prices
   * until it has its own, and with no password (nothing signs in as it until one is set).
   */
  async create(input: {
    username: string;
    password?: string;
    currency?: string;
    parent?: string;
    name?: string | null;
  }): Promise<Account> {
    const username = input.username.trim();
    if (!USERNAME.test(username)) {
      throw new AccountError('username must be 3-64 characters: letters, digits, . _ @ -');
    }
    if (input.password === undefined && input.parent === undefined)
      throw new AccountError('a password is required');
    if (input.password !== undefined) checkPassword(input.password, username);
    const passwordHash =
      input.password === undefined
        ? NO_PASSWORD
        : await argon2.hash(input.password, { type: argon2.argon2id });
    return this.store.transaction(async (em) => {
      let parent: Account | null = null;
      if (input.parent !== undefined) {
        // Locked, so the parent cannot become a sub-account itself while this one is created.
        parent = await this.store.lockByUsername(em, input.parent);
        if (!parent) throw new AccountError(`no account named ${input.parent}`);
        if (parent.parentId)
          throw new AccountError(`${parent.username} is a sub-account: a sub-account has none`);
      }
      const currency = (input.currency ?? parent?.currency ?? 'ZMW').toUpperCase();
      if (!/^[A-Z]{3}$/.test(currency))
        throw new AccountError('currency must be a three-letter ISO 4217 code');
      if (parent && currency !== parent.currency)
        throw new AccountError(`a sub-account uses its parent's currency (${parent.currency})`);
      const exists = await this.store.findByUsername(username, em);
      if (exists) throw new UsernameTaken(username);
      const fields = {
        clientId: randomUUID(),
        parentId: parent?.id ?? null,
        username,
        name: input.name ?? null,
        passwordHash,
        status: 'active' as const,
        currency,
        callbackSecret: randomBytes(32).toString('hex'),
      };
      let account: Account;
      try {
        account = await this.store.insert(em, fields);
      } catch (err) {
        if ((err as { errno?: number }).errno === MYSQL_DUP) throw new UsernameTaken(username);
        throw err;
      }
      const parentPrices = parent ? await this.store.channels(em, parent.id) : [];
      await this.store.insertChannels(
        em,
        CHANNELS.map((channel) => ({
          accountId: account.id,
          channel,
          balance: '0',
          // A sub-account's row keeps the parent's price of the day for display; it pays the
          // parent's current one while price_inherited is set.
          costPerUnit:
            parentPrices.find((p) => p.channel === channel)?.costPerUnit ?? DEFAULT_PRICES[channel],
          priceInherited: parent !== null,
        })),
      );
      return account;
    });
  }

  async findByUsername(username: string): Promise<Account | null> {
    return this.store.findByUsername(username);
  }

  async findById(id: string): Promise<Account | null> {
    return this.store.findById(id);
  }

  async requireByUsername(username: string): Promise<Account> {
    const a = await this.findByUsername(username);
    if (!a) throw new AccountError(`no account named ${username}`);
    return a;
  }

  async list(): Promise<Account[]> {
    return this.store.list();
  }

  /** The ids of the account's sub-accounts (none for a sub-account). */
  childrenOf(parentId: string): Promise<string[]> {
    return this.store.childrenOf(parentId);
  }

  /** False on a new install, before the first account is made. */
  async any(): Promise<boolean> {
    return this.store.any();
  }

  /** The sub-account `username` of the account `parentId`; null when it is not one of its sub-accounts. */
  async findSubaccount(parentId: string, username: string): Promise<Account | null> {
    return this.store.findSubaccount(parentId, username);
  }

  async setStatus(username: string, status: AccountStatus): Promise<Account> {
    const a = await this.requireByUsername(username);
    await this.store.update(a.id, { status });
    return { ...a, status };
  }

  /** The default for SMS sends that do not give smart_encoding. */
  async setSmartEncoding(username: string, on: boolean): Promise<Account> {
    const a = await this.requireByUsername(username);
    await this.store.update(a.id, { smartEncoding: on });
    return { ...a, smartEncoding: on };
  }

  /**
   * Sets (a checked window) or removes (null) the account's send window; `timeZone`, when given,
   * is the zone of its e-mail recipients.
   */
  async setSendWindow(
    username: string,
    window: AccountSendWindow | null,
    timeZone?: string,
  ): Promise<Account> {
    const a = await this.requireByUsername(username);
    const change = timeZone ? { sendWindow: window, timeZone } : { sendWindow: window };
    await this.store.update(a.id, change);
    return { ...a, ...change };
  }

  /** Sets (a checked URL) or clears (null) where the account's message events go by default. */
  async setStatusCallbackUrl(accountId: string, url: string | null): Promise<void> {
    await this.store.update(accountId, { statusCallbackUrl: url });
  }

  /** Sets (a decimal text) or clears (null) the account's daily spend limit. */
  async setDailyLimit(username: string, dailyLimit: string | null): Promise<Account> {
    const a = await this.requireByUsername(username);
    await this.store.update(a.id, { dailyLimit });
    return { ...a, dailyLimit };
  }

  /** The account's username and password hash, for CredentialCheck; null when it is gone. */
  async credentials(accountId: string): Promise<{ username: string; passwordHash: string } | null> {
    const row = await this.store.credentials(accountId);
    return row ? { username: row.username, passwordHash: row.passwordHash } : null;
  }

  /**
   * Sets a new password. Checks remembered by API processes stop matching within the API-key
   * cache's TTL: they are tied to a digest of the stored hash, which a new salt always changes.
   */
  async changePassword(username: string, password: string): Promise<Account> {
    const account = await this.requireByUsername(username);
    checkPassword(password, account.username);
    const passwordHash = await argon2.hash(password, { type: argon2.argon2id });
    await this.store.update(account.id, { passwordHash });
    return account;
  }

  /** The key that signs this account's delivery callbacks; never loaded by default. */
  async callbackSecret(username: string): Promise<string> {
    const row = await this.store.withCallbackSecret(username);
    if (!row) throw new AccountError(`no account named ${username}`);
    return row.callbackSecret;
  }

  /** The secret that signs the callbacks of the account `accountId`; undefined when there is no such account. */
  callbackSecretOf(accountId: string): Promise<string | undefined> {
    return this.store.callbackSecretOf(accountId);
  }

  /** Replaces the callback signing secret; callbacks signed from now on use the new one. */
  async rotateCallbackSecret(username: string): Promise<string> {
    const account = await this.requireByUsername(username);
    const secret = randomBytes(32).toString('hex');
    await this.store.update(account.id, { callbackSecret: secret });
    return secret;
  }
}
