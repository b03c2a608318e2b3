import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Decimal } from 'decimal.js';
import { DataSource, type EntityManager } from 'typeorm';
import { isPositive, money } from '../../platform/money/money.js';
import type { Statement } from '../../database/statement.js';
import type { Channel } from '../messages/channel.js';

/** A transfer moves credit between a parent and a sub-account: two rows, one per account, naming it. */
export type LedgerKind = 'topup' | 'charge' | 'refund' | 'transfer';

export class InsufficientBalance extends Error {
  constructor(
    readonly needed: string,
    readonly available: string,
  ) {
    super('insufficient balance');
  }
}

/** What one send request is charged on one channel. */
export interface Charge {
  accountId: string;
  channel: Channel;
  amount: string;
  sendRequestId: string;
}

/** A message whose charge is given back. */
export interface RefundRow {
  id: string;
  accountId: string;
  channel: Channel;
  cost: string;
  sendRequestId: string;
}

/**
 * The statements of a debit: the conditional UPDATEs, in their fixed order, each of which must
 * change exactly one row (else that balance cannot pay), then the ledger rows.
 */
export interface DebitStatements {
  debits: Array<Statement & { accountId: string; channel: Channel; amount: string }>;
  ledger: Statement;
}

const TAKE =
  'UPDATE account_channels SET balance = balance - ? WHERE account_id = ? AND channel = ? AND balance >= ?';
const GIVE = 'UPDATE account_channels SET balance = balance + ? WHERE account_id = ? AND channel = ?';

/**
 * The debit of these charges: one conditional UPDATE per account and channel (in a fixed order,
 * so concurrent batches cannot deadlock) and one ledger row per charge. Null when nothing is to
 * be paid. Run by `LedgerStore.debit`, or by the send committer among a batch's statements.
 */
export function debitStatements(charges: Charge[]): DebitStatements | null {
  const paid = charges.filter((c) => isPositive(c.amount));
  if (paid.length === 0) return null;
  const totals = new Map<string, { accountId: string; channel: Channel; total: Decimal }>();
  for (const c of paid) {
    const key = `${c.accountId.padStart(20, '0')}:${c.channel}`;
    const t = totals.get(key) ?? { accountId: c.accountId, channel: c.channel, total: new Decimal(0) };
    t.total = t.total.plus(c.amount);
    totals.set(key, t);
  }
  const debits = [...totals.keys()].sort().map((key) => {
    const { accountId, channel, total } = totals.get(key)!;
    const amount = money(total);
    return { sql: TAKE, params: [amount, accountId, channel, amount], accountId, channel, amount };
  });
  const ledger: unknown[] = [];
  for (const c of paid) ledger.push(c.accountId, c.channel, `-${c.amount}`, c.sendRequestId);
  return {
    debits,
    ledger: {
      sql: `INSERT INTO ledger_entries (account_id, channel, kind, amount, send_request_id) VALUES ${paid.map(() => "(?, ?, 'charge', ?, ?)").join(',')}`,
      params: ledger,
    },
  };
}

/**
 * Every statement that moves money: the balance changes of account_channels and the
 * ledger_entries rows that record them. Methods that take an EntityManager run in the caller's
 * transaction, which decides what else is locked and in what order.
 */
@Injectable()
export class LedgerStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Runs a debit's conditional UPDATEs in their order, then its ledger rows. The conditional
   * UPDATE cannot overdraw however many transactions race; the first balance that cannot pay
   * its total throws InsufficientBalance, with what that balance holds.
   */
  async debit(em: EntityManager, statements: DebitStatements): Promise<void> {
    for (const d of statements.debits) {
      const res = (await em.query(d.sql, d.params)) as { affectedRows: number };
      if (res.affectedRows !== 1) {
        const row = await em.query(
          'SELECT balance FROM account_channels WHERE account_id = ? AND channel = ?',
          [d.accountId, d.channel],
        );
        throw new InsufficientBalance(d.amount, money(row[0]?.balance ?? 0));
      }
    }
    await em.query(statements.ledger.sql, statements.ledger.params);
  }

  /** Adds to a channel balance (a top-up, a refund's total): no condition, a balance only grows here. */
  async credit(em: EntityManager, accountId: string, channel: Channel, amount: string): Promise<void> {
    await em.query(GIVE, [amount, accountId, channel]);
  }

  /** One ledger row. Raw INSERT: the repository would re-read defaults with a second query. */
  async record(
    em: EntityManager,
    row: {
      accountId: string;
      channel: Channel;
      kind: LedgerKind;
      amount: string;
      sendRequestId: string | null;
      messageId: string | null;
      note: string | null;
    },
  ): Promise<void> {
    await em.query(
      'INSERT INTO ledger_entries (account_id, channel, kind, amount, send_request_id, message_id, note) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [row.accountId, row.channel, row.kind, row.amount, row.sendRequestId, row.messageId, row.note],
    );
  }

  /** Of these messages, the ids the ledger already holds a refund for (its unique key allows one each). */
  async refundedAmong(em: EntityManager, messageIds: string[]): Promise<Set<string>> {
    const rows = (await em.query(
      "SELECT message_id FROM ledger_entries WHERE kind = 'refund' AND message_id IN (?)",
      [messageIds],
    )) as Array<{ message_id: string }>;
    return new Set(rows.map((r) => String(r.message_id)));
  }

  /** One refund row per message, in one multi-row INSERT. */
  async recordRefunds(em: EntityManager, refunds: RefundRow[]): Promise<void> {
    await em.query(
      `INSERT INTO ledger_entries (account_id, channel, kind, amount, send_request_id, message_id, note)
       VALUES ${refunds.map(() => "(?, ?, 'refund', ?, ?, ?, NULL)").join(',')}`,
      refunds.flatMap((m) => [m.accountId, m.channel, m.cost, m.sendRequestId, m.id]),
    );
  }

  /** The sum of a request's refunds, as decimal text ('0.000000' when none). */
  async refundedForRequest(sendRequestId: string): Promise<string> {
    const [row] = (await this.ds.query(
      "SELECT COALESCE(SUM(amount), 0) AS refunded FROM ledger_entries WHERE send_request_id = ? AND kind = 'refund'",
      [sendRequestId],
    )) as Array<{ refunded: string }>;
    return String(row.refunded);
  }
}
