import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { Channel } from './channel.js';
import { AccountChannel } from './account-channel.entity.js';
import { Account } from './account.entity.js';

/** A new account's row, before the database gives it an id. */
export type NewAccount = Pick<
  Account,
  'clientId' | 'parentId' | 'username' | 'name' | 'passwordHash' | 'status' | 'currency' | 'callbackSecret'
>;

/** A new account's balance row for one channel. */
export interface NewAccountChannel {
  accountId: string;
  channel: Channel;
  balance: string;
  costPerUnit: string;
  priceInherited: boolean;
}

/** Every statement on accounts, and the balance rows an account is created with. */
@Injectable()
export class AccountStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  transaction<T>(work: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.ds.transaction(work);
  }

  /** Locked until the transaction ends (so a parent cannot change kind meanwhile). */
  lockByUsername(em: EntityManager, username: string): Promise<Account | null> {
    return em.findOne(Account, { where: { username }, lock: { mode: 'pessimistic_write' } });
  }

  findByUsername(username: string, em: EntityManager | DataSource = this.ds): Promise<Account | null> {
    return em.getRepository(Account).findOne({ where: { username } });
  }

  findById(id: string): Promise<Account | null> {
    return this.ds.getRepository(Account).findOne({ where: { id } });
  }

  list(): Promise<Account[]> {
    return this.ds.getRepository(Account).find({ order: { id: 'ASC' } });
  }

  any(): Promise<boolean> {
    return this.ds.getRepository(Account).exists();
  }

  findSubaccount(parentId: string, username: string): Promise<Account | null> {
    return this.ds.getRepository(Account).findOne({ where: { username, parentId } });
  }

  /** Inserts the account; it comes back with its id and defaults. Throws MySQL's duplicate error on a taken username. */
  async insert(em: EntityManager, fields: NewAccount): Promise<Account> {
    const account = em.create(Account, fields);
    await em.insert(Account, account);
    return account;
  }

  channels(em: EntityManager, accountId: string): Promise<AccountChannel[]> {
    return em.find(AccountChannel, { where: { accountId } });
  }

  async insertChannels(em: EntityManager, rows: NewAccountChannel[]): Promise<void> {
    await em.insert(AccountChannel, rows);
  }

  async update(id: string, change: Partial<Account>): Promise<void> {
    await this.ds.getRepository(Account).update({ id }, change);
  }

  /** The ids of an account's sub-accounts. */
  async childrenOf(parentId: string): Promise<string[]> {
    const rows = (await this.ds.query('SELECT id FROM accounts WHERE parent_id = ?', [parentId])) as Array<{
      id: string | number;
    }>;
    return rows.map((r) => String(r.id));
  }

  /** Each account's parent id (null for a top-level account); a plain read, no lock. */
  async parentsOf(em: EntityManager, ids: string[]): Promise<Array<{ id: string; parentId: string | null }>> {
    const rows = (await em.query('SELECT id, parent_id FROM accounts WHERE id IN (?)', [ids])) as Array<{
      id: string | number;
      parent_id: string | number | null;
    }>;
    return rows.map((r) => ({
      id: String(r.id),
      parentId: r.parent_id === null ? null : String(r.parent_id),
    }));
  }

  /** The columns never loaded by default (password hash, callback secret) are read only here. */
  credentials(accountId: string): Promise<Account | null> {
    return this.ds
      .getRepository(Account)
      .createQueryBuilder('a')
      .addSelect('a.passwordHash')
      .where('a.id = :id', { id: accountId })
      .getOne();
  }

  /** One plain statement: it runs for every callback sent. */
  async callbackSecretOf(accountId: string): Promise<string | undefined> {
    const [row] = (await this.ds.query('SELECT callback_secret FROM accounts WHERE id = ?', [
      accountId,
    ])) as Array<{
      callback_secret: string;
    }>;
    return row?.callback_secret;
  }

  withCallbackSecret(username: string): Promise<Account | null> {
    return this.ds
      .getRepository(Account)
      .createQueryBuilder('a')
      .addSelect('a.callbackSecret')
      .where('a.username = :username', { username })
      .getOne();
  }
}
