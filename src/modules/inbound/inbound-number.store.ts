import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

export interface NumberRoute {
  account_id: string;
  /** '' when the whole number belongs to the account. */
  keyword: string;
}

export interface NumberRow extends NumberRoute {
  number: string;
  username: string;
  created_at: Date;
}

export class NumberTaken extends Error {}

const MYSQL_DUP = 1062;

/** All SQL on inbound_numbers: which account a number (and keyword) belongs to. */
@Injectable()
export class InboundNumberStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async add(accountId: string, number: string, keyword: string): Promise<void> {
    try {
      await this.ds.query('INSERT INTO inbound_numbers (number, keyword, account_id) VALUES (?, ?, ?)', [
        number,
        keyword,
        accountId,
      ]);
    } catch (err) {
      if ((err as { errno?: number }).errno === MYSQL_DUP) throw new NumberTaken();
      throw err;
    }
  }

  async remove(number: string, keyword: string, accountId?: string): Promise<number> {
    const res = (await (accountId
      ? this.ds.query('DELETE FROM inbound_numbers WHERE number = ? AND keyword = ? AND account_id = ?', [
          number,
          keyword,
          accountId,
        ])
      : this.ds.query('DELETE FROM inbound_numbers WHERE number = ? AND keyword = ?', [
          number,
          keyword,
        ]))) as {
      affectedRows?: number;
    };
    return res.affectedRows ?? 0;
  }

  /** Every assignment, or one account's (null: every account). */
  async list(accountId?: string): Promise<NumberRow[]> {
    return (await this.ds.query(
      `SELECT n.number, n.keyword, n.account_id, a.username, n.created_at
         FROM inbound_numbers n JOIN accounts a ON a.id = n.account_id
        WHERE (? IS NULL OR n.account_id = ?) ORDER BY n.number, n.keyword`,
      [accountId ?? null, accountId ?? null],
    )) as NumberRow[];
  }

  /** Every assignment of a number: the whole-number owner ('' keyword) and the keywords sharing it. */
  async routes(number: string): Promise<NumberRoute[]> {
    return (await this.ds.query('SELECT account_id, keyword FROM inbound_numbers WHERE number = ?', [
      number,
    ])) as NumberRoute[];
  }
}
