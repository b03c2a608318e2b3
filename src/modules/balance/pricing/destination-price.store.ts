import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Channel } from '../../messages/channel.js';
import type { PriceRow } from './price-table.js';

/** Every statement on destination_prices: an account's price per unit to a destination prefix. */
@Injectable()
export class DestinationPriceStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async prices(accountId: string, channel?: Channel): Promise<Array<PriceRow & { channel: Channel }>> {
    return (await this.ds.query(
      `SELECT channel, prefix, cost_per_unit FROM destination_prices
        WHERE account_id = ? AND (? IS NULL OR channel = ?) ORDER BY channel, prefix`,
      [accountId, channel ?? null, channel ?? null],
    )) as Array<PriceRow & { channel: Channel }>;
  }

  /**
   * The destination prices an account pays on a channel: its own, and for a sub-account its
   * parent's on every prefix it has not priced itself.
   */
  async effectivePrices(accountId: string, channel: Channel): Promise<PriceRow[]> {
    return (await this.ds.query(
      `SELECT prefix, cost_per_unit FROM destination_prices WHERE account_id = ? AND channel = ?
       UNION ALL
       SELECT p.prefix, p.cost_per_unit
         FROM accounts a JOIN destination_prices p ON p.account_id = a.parent_id AND p.channel = ?
        WHERE a.id = ?
          AND NOT EXISTS (SELECT 1 FROM destination_prices o
                           WHERE o.account_id = a.id AND o.channel = p.channel AND o.prefix = p.prefix)`,
      [accountId, channel, channel, accountId],
    )) as PriceRow[];
  }

  async setPrice(accountId: string, channel: Channel, prefix: string, costPerUnit: string): Promise<void> {
    await this.ds.query(
      `INSERT INTO destination_prices (account_id, channel, prefix, cost_per_unit) VALUES (?, ?, ?, ?)
       ON DUPLICATE KEY UPDATE cost_per_unit = VALUES(cost_per_unit)`,
      [accountId, channel, prefix, costPerUnit],
    );
  }

  async deletePrice(accountId: string, channel: Channel, prefix: string): Promise<boolean> {
    const result = (await this.ds.query(
      'DELETE FROM destination_prices WHERE account_id = ? AND channel = ? AND prefix = ?',
      [accountId, channel, prefix],
    )) as { affectedRows: number };
    return result.affectedRows > 0;
  }
}
