import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { AccountChannel } from '../accounts/account-channel.entity.js';
import type { Channel } from '../messages/channel.js';

interface Row {
  account_id: string | number;
  channel: Channel;
  balance: string;
  cost_per_unit: string;
  price_inherited: number | boolean;
  updated_at: Date;
}

/**
 * An account's channel rows with the price it pays: its own, or, for a sub-account channel
 * with no price of its own, its parent's current one.
 */
const EFFECTIVE = `SELECT c.account_id, c.channel, c.balance,
       IF(c.price_inherited, COALESCE(p.cost_per_unit, c.cost_per_unit), c.cost_per_unit) AS cost_per_unit,
       c.price_inherited, c.updated_at
  FROM account_channels c
  JOIN accounts a ON a.id = c.account_id
  LEFT JOIN account_channels p ON p.account_id = a.parent_id AND p.channel = c.channel`;

const view = (r: Row): AccountChannel => ({
  accountId: String(r.account_id),
  channel: r.channel,
  balance: r.balance,
  costPerUnit: r.cost_per_unit,
  priceInherited: !!r.price_inherited,
  updatedAt: new Date(r.updated_at),
});

/** Reads and price changes of account_channels (balance changes are the ledger's, in LedgerStore). */
@Injectable()
export class AccountChannelStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async channels(accountId: string): Promise<AccountChannel[]> {
    return (
      (await this.ds.query(`${EFFECTIVE} WHERE c.account_id = ? ORDER BY c.channel`, [accountId])) as Row[]
    ).map(view);
  }

  /** The channels of several accounts at once (a page of sub-accounts). */
  async channelsOf(accountIds: string[]): Promise<AccountChannel[]> {
    if (accountIds.length === 0) return [];
    return ((await this.ds.query(`${EFFECTIVE} WHERE c.account_id IN (?)`, [accountIds])) as Row[]).map(view);
  }

  async channel(
    accountId: string,
    channel: Channel,
    em: EntityManager = this.ds.manager,
  ): Promise<AccountChannel> {
    const [row] = (await em.query(`${EFFECTIVE} WHERE c.account_id = ? AND c.channel = ?`, [
      accountId,
      channel,
    ])) as Row[];
    if (!row) throw new Error(`account ${accountId} has no ${channel} channel`);
    return view(row);
  }

  /** The account's own price from now on (a sub-account stops following its parent's on this channel). */
  async setPrice(accountId: string, channel: Channel, costPerUnit: string): Promise<void> {
    await this.ds.query(
      'UPDATE account_channels SET cost_per_unit = ?, price_inherited = 0 WHERE account_id = ? AND channel = ?',
      [costPerUnit, accountId, channel],
    );
  }
}
