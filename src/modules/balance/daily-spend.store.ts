import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Decimal } from 'decimal.js';
import { DataSource, type EntityManager } from 'typeorm';
import { money } from '../../platform/money/money.js';
import type { Statement } from '../../database/statement.js';

export type SpendScope = 'account' | 'key';

/** The primary key of a daily_spend row: an account's or a key's UTC day ('YYYY-MM-DD'). */
export interface SpendOwner {
  scope: SpendScope;
  ownerId: string;
  day: string;
}

/** A daily_spend row as the locking read gives it. */
export interface DailySpendRow {
  scope: SpendScope;
  owner_id: string | number;
  day: string;
  spent: string;
}

/**
 * Adds each row's total in one upsert, the rows in primary-key order (the order they are locked
 * in). The rows exist (createRows); the upsert only covers one cleared meanwhile by hand. Run by
 * `DailySpendStore.addSpent`, or by the send committer among a batch's statements.
 */
export function addSpentStatement(owners: Array<SpendOwner & { added: Decimal }>): Statement {
  return {
    sql: `INSERT INTO daily_spend (scope, owner_id, day, spent) VALUES ${owners.map(() => '(?, ?, ?, ?)').join(',')}
       ON DUPLICATE KEY UPDATE spent = spent + VALUES(spent)`,
    params: owners.flatMap((o) => [o.scope, o.ownerId, o.day, money(o.added)]),
  };
}

/**
 * Every statement on daily_spend (one row per owner and UTC day, net of refunds). Methods that
 * take an EntityManager run in the caller's transaction; the others on their own connection.
 * The methods on the send path return the driver's promise as it is, adding no step to a send.
 */
@Injectable()
export class DailySpendStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Outside any transaction: creates the rows not there yet at 0, leaving those there as they are; `owners` come in primary-key order. */
  async createRows(owners: SpendOwner[]): Promise<void> {
    await this.ds.query(
      `INSERT IGNORE INTO daily_spend (scope, owner_id, day, spent) VALUES ${owners.map(() => '(?, ?, ?, 0)').join(',')}`,
      owners.flatMap((o) => [o.scope, o.ownerId, o.day]),
    );
  }

  /** The rows, read and locked (SELECT … FOR UPDATE) in primary-key order; `owners` come in that order. */
  lock(em: EntityManager, owners: SpendOwner[]): Promise<DailySpendRow[]> {
    return em.query(
      `SELECT scope, owner_id, DATE_FORMAT(day, '%Y-%m-%d') AS day, spent FROM daily_spend
        WHERE ${owners.map(() => '(scope = ? AND owner_id = ? AND day = ?)').join(' OR ')}
        ORDER BY scope, owner_id, day FOR UPDATE`,
      owners.flatMap((o) => [o.scope, o.ownerId, o.day]),
    );
  }

  /** The statement of `addSpentStatement`, alone. */
  addSpent(em: EntityManager, owners: Array<SpendOwner & { added: Decimal }>): Promise<void> {
    const s = addSpentStatement(owners);
    return em.query(s.sql, s.params);
  }

  /** Takes each row's amount off it, never below 0; `rows` come in primary-key order. */
  async giveBack(em: EntityManager, rows: Array<SpendOwner & { amount: string }>): Promise<void> {
    const match = '(scope = ? AND owner_id = ? AND day = ?)';
    const ids = rows.flatMap((r) => [r.scope, r.ownerId, r.day]);
    // Equalities on the whole primary key, so only these rows are locked (in index order).
    await em.query(
      `UPDATE daily_spend SET spent = GREATEST(spent - CASE ${rows.map(() => `WHEN ${match} THEN ?`).join(' ')} ELSE 0 END, 0)
        WHERE ${rows.map(() => match).join(' OR ')}`,
      [...rows.flatMap((r) => [r.scope, r.ownerId, r.day, r.amount]), ...ids],
    );
  }

  /** What owners of one scope have spent on a day together. */
  async spentTogether(scope: SpendScope, ownerIds: string[], day: string): Promise<string> {
    if (ownerIds.length === 0) return '0';
    const [row] = (await this.ds.query(
      'SELECT COALESCE(SUM(spent), 0) AS spent FROM daily_spend WHERE scope = ? AND owner_id IN (?) AND day = ?',
      [scope, ownerIds, day],
    )) as Array<{ spent: string }>;
    return row?.spent ?? '0';
  }

  /** What an owner has spent on a day, as the row holds it (undefined: no row). */
  async spent(owner: SpendOwner): Promise<string | undefined> {
    const [row] = (await this.ds.query(
      'SELECT spent FROM daily_spend WHERE scope = ? AND owner_id = ? AND day = ?',
      [owner.scope, owner.ownerId, owner.day],
    )) as Array<{ spent: string }>;
    return row?.spent;
  }
}
