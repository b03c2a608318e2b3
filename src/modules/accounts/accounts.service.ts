import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import argon2 from 'argon2';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/errors/app.exception.js';
import { AccountChannel } from '../balance/account-channel.entity.js';
import { CHANNELS } from '../messaging/channel.js';
import { Account, type AccountStatus } from './account.entity.js';

export const DEFAULT_PRICES = { sms: '0.250000', email: '0.050000', chat: '0.100000' } as const;

export class AccountError extends Error {}

const VERIFIED_TTL_MS = 5 * 60_000;
const VERIFIED_MAX = 10_000;

@Injectable()
export class AccountsService {
  /**
   * argon2 is slow on purpose; a chat or balance call must not pay for it every time. A keyed
   * digest of (account, password) that verified recently is remembered for a few minutes.
   */
  private readonly verified = new Map<string, number>();
  private readonly verifyKey = randomBytes(32);

  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Creates an account with a balance row per channel at the default price. */
  async create(input: { username: string; password: string; currency?: string }): Promise<Account> {
    const username = input.username.trim();
    if (!/^[A-Za-z0-9._@-]{3,64}$/.test(username)) {
      throw new AccountError('username must be 3-64 characters: letters, digits, . _ @ -');
    }
    if (input.password.length < 8) throw new AccountError('password must be at least 8 characters');
    const currency = (input.currency ?? 'ZMW').toUpperCase();
    if (!/^[A-Z]{3}$/.test(currency)) throw new AccountError('currency must be a three-letter ISO 4217 code');
    const passwordHash = await argon2.hash(input.password, { type: argon2.argon2id });
    return this.ds.transaction(async (em) => {
      const exists = await em.findOne(Account, { where: { username } });
      if (exists) throw new AccountError(`an account named ${username} already exists`);
      const account = em.create(Account, {
        clientId: randomUUID(),
        username,
        passwordHash,
        status: 'active',
        currency,
        callbackSecret: randomBytes(32).toString('hex'),
      });
      await em.insert(Account, account);
      await em.insert(
        AccountChannel,
        CHANNELS.map((channel) => ({ accountId: account.id, channel, balance: '0', costPerUnit: DEFAULT_PRICES[channel] })),
      );
      return account;
    });
  }

  async findByUsername(username: string): Promise<Account | null> {
    return this.ds.getRepository(Account).findOne({ where: { username } });
  }

  async requireByUsername(username: string): Promise<Account> {
    const a = await this.findByUsername(username);
    if (!a) throw new AccountError(`no account named ${username}`);
    return a;
  }

  async list(): Promise<Account[]> {
    return this.ds.getRepository(Account).find({ order: { id: 'ASC' } });
  }

  async setStatus(username: string, status: AccountStatus): Promise<Account> {
    const a = await this.requireByUsername(username);
    await this.ds.getRepository(Account).update({ id: a.id }, { status });
    return { ...a, status };
  }

  /**
   * Checks body credentials against the key's own account. A wrong password and a foreign
   * account get the same answer, so the endpoint cannot be used to probe usernames.
   */
  async verifyCredentials(accountId: string, username: unknown, password: unknown): Promise<void> {
    const fail = () =>
      new AppException('INVALID_CREDENTIALS', 'The username and password do not match this API key.');
    if (typeof username !== 'string' || typeof password !== 'string' || !username || !password) {
      throw AppException.validation(
        [
          ...(typeof username === 'string' && username ? [] : [{ field: 'username', message: 'username is required' }]),
          ...(typeof password === 'string' && password ? [] : [{ field: 'password', message: 'password is required' }]),
        ],
        'username and password are required.',
      );
    }
    const digest = createHmac('sha256', this.verifyKey).update(`${accountId}\0${username}\0${password}`).digest('base64');
    const until = this.verified.get(digest);
    if (until && until > Date.now()) return;
    const row = await this.ds
      .getRepository(Account)
      .createQueryBuilder('a')
      .addSelect('a.passwordHash')
      .where('a.id = :id', { id: accountId })
      .getOne();
    if (!row || row.username !== username) throw fail();
    const ok = await argon2.verify(row.passwordHash, password).catch(() => false);
    if (!ok) throw fail();
    if (this.verified.size >= VERIFIED_MAX) this.verified.clear();
    this.verified.set(digest, Date.now() + VERIFIED_TTL_MS);
  }


  /** The key that signs this account's delivery callbacks; never loaded by default. */
  async callbackSecret(username: string): Promise<string> {
    const row = await this.ds
      .getRepository(Account)
      .createQueryBuilder('a')
      .addSelect('a.callbackSecret')
      .where('a.username = :username', { username })
      .getOne();
    if (!row) throw new AccountError(`no account named ${username}`);
    return row.callbackSecret;
  }

  /** Replaces the callback signing secret; callbacks signed from now on use the new one. */
  async rotateCallbackSecret(username: string): Promise<string> {
    const account = await this.requireByUsername(username);
    const secret = randomBytes(32).toString('hex');
    await this.ds.getRepository(Account).update({ id: account.id }, { callbackSecret: secret });
    return secret;
  }
}
