import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Channel } from '../messages/channel.js';

export interface SubaccountRow {
  id: string;
  username: string;
  name: string | null;
  status: 'active' | 'suspended';
  currency: string;
  created_at: Date;
}

export interface ChannelUsage {
  account_id: string;
  channel: Channel;
  units: string;
  cost: string;
}

/**
 * The reads of the sub-account overview: a parent's sub-accounts, page by page, and what each
 * spent this month. Balances and prices come from BalanceService (the price a sub-account pays
 * may be its parent's).
 */
@Injectable()
export class SubaccountStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** The parent's sub-accounts after `afterId` (exclusive), oldest first. */
  async page(parentId: string, afterId: string | null, limit: number): Promise<SubaccountRow[]> {
    const rows = (await this.ds.query(
      `SELECT id, username, name, status, currency, created_at FROM accounts
        WHERE parent_id = ? AND id > ? ORDER BY id LIMIT ?`,
      [parentId, afterId ?? '0', limit],
    )) as SubaccountRow[];
    return rows.map((r) => ({ ...r, id: String(r.id) }));
  }

  /**
   * Units and cost per account and channel of the live messages created since `from` that were
   * charged and not refunded (a message refunded for failing costs its account nothing).
   */
  async usageSince(accountIds: string[], from: Date): Promise<ChannelUsage[]> {
    if (accountIds.length === 0) return [];
    const rows = (await this.ds.query(
      `SELECT m.account_id, m.channel, SUM(m.units) AS units, SUM(m.cost) AS cost
         FROM messages m
         JOIN send_requests r ON r.id = m.send_request_id AND r.test_mode = 0
        WHERE m.account_id IN (?) AND m.created_at >= ? AND m.cost > 0
          AND NOT EXISTS (SELECT 1 FROM ledger_entries l WHERE l.kind = 'refund' AND l.message_id = m.id)
        GROUP BY m.account_id, m.channel`,
      [accountIds, from],
    )) as ChannelUsage[];
    return rows.map((r) => ({ ...r, account_id: String(r.account_id) }));
  }
}
