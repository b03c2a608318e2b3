import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { money } from '../../platform/money/money.js';
import type { Channel } from '../messages/channel.js';

/** The paying side of a transfer could not pay it: nothing moved. */
export class TransferNotCovered extends Error {
  constructor(
    /** Whose balance was short. */
    readonly payer: 'parent' | 'subaccount',
    readonly available: string,
    readonly needed: string,
  ) {
    super('insufficient balance');
  }
}

export interface TransferResult {
  transferId: string;
  parentBalance: string;
  subaccountBalance: string;
}

/**
 * Every statement of a transfer between a parent and one of its sub-accounts: both balances
 * and the transfer's row and two ledger rows, in one transaction. The balance rows are taken
 * in account-id order whichever way the credit moves, so two opposite transfers cannot
 * deadlock; the payer's is a conditional UPDATE (as a send's debit), so no number of
 * concurrent transfers and sends can take a balance below zero.
 */
@Injectable()
export class TransferStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** `amount` > 0 moves parent → sub-account, < 0 sub-account → parent (exact decimal text, not zero). */
  async transfer(
    parentId: string,
    subaccountId: string,
    channel: Channel,
    amount: string,
  ): Promise<TransferResult> {
    const down = !amount.startsWith('-');
    const size = money(down ? amount : amount.slice(1));
    const payer = down ? parentId : subaccountId;
    const payee = down ? subaccountId : parentId;
    const order = BigInt(payer) < BigInt(payee) ? [payer, payee] : [payee, payer];
    return this.ds.transaction(async (em) => {
      for (const accountId of order) {
        if (accountId === payer) {
          const res = (await em.query(
            'UPDATE account_channels SET balance = balance - ? WHERE account_id = ? AND channel = ? AND balance >= ?',
            [size, payer, channel, size],
          )) as { affectedRows: number };
          if (res.affectedRows !== 1) {
            const [row] = (await em.query(
              'SELECT balance FROM account_channels WHERE account_id = ? AND channel = ?',
              [payer, channel],
            )) as Array<{ balance: string }>;
            throw new TransferNotCovered(down ? 'parent' : 'subaccount', money(row?.balance ?? 0), size);
          }
        } else {
          await em.query(
            'UPDATE account_channels SET balance = balance + ? WHERE account_id = ? AND channel = ?',
            [size, payee, channel],
          );
        }
      }
      const inserted = (await em.query(
        'INSERT INTO transfers (parent_id, subaccount_id, channel, amount) VALUES (?, ?, ?, ?)',
        [parentId, subaccountId, channel, down ? size : `-${size}`],
      )) as { insertId: number | string };
      const transferId = String(inserted.insertId);
      await em.query(
        `INSERT INTO ledger_entries (account_id, channel, kind, amount, transfer_id, note)
         VALUES (?, ?, 'transfer', ?, ?, ?), (?, ?, 'transfer', ?, ?, ?)`,
        [
          payer,
          channel,
          `-${size}`,
          transferId,
          'transfer out',
          payee,
          channel,
          size,
          transferId,
          'transfer in',
        ],
      );
      const rows = (await em.query(
        'SELECT account_id, balance FROM account_channels WHERE account_id IN (?, ?) AND channel = ?',
        [parentId, subaccountId, channel],
      )) as Array<{ account_id: string | number; balance: string }>;
      const balanceOf = (id: string) => money(rows.find((r) => String(r.account_id) === id)?.balance ?? 0);
      return { transferId, parentBalance: balanceOf(parentId), subaccountBalance: balanceOf(subaccountId) };
    });
  }
}
