import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Channel } from '../messages/channel.js';

export interface TemplateRow {
  id: string;
  account_id: string;
  name: string;
  channel: Channel;
  subject: string | null;
  body: string;
  created_at: Date;
  updated_at: Date;
}

export interface TemplateFields {
  name: string;
  channel: Channel;
  subject: string | null;
  body: string;
}

const COLUMNS = 'id, account_id, name, channel, subject, body, created_at, updated_at';
const MYSQL_DUP = 1062;

export class TemplateNameTaken extends Error {}

/** Every statement on the templates table; always scoped to one account. */
@Injectable()
export class TemplateStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async insert(accountId: string, id: string, t: TemplateFields, at: Date): Promise<void> {
    try {
      await this.ds.query(
        `INSERT INTO templates (id, account_id, name, channel, subject, body, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [id, accountId, t.name, t.channel, t.subject, t.body, at, at],
      );
    } catch (err) {
      if ((err as { errno?: number }).errno === MYSQL_DUP) throw new TemplateNameTaken();
      throw err;
    }
  }

  async find(accountId: string, id: string): Promise<TemplateRow | undefined> {
    const [row] = (await this.ds.query(`SELECT ${COLUMNS} FROM templates WHERE account_id = ? AND id = ?`, [
      accountId,
      id,
    ])) as TemplateRow[];
    return row;
  }

  async list(
    accountId: string,
    channel: Channel | null,
    limit: number,
    offset: number,
  ): Promise<TemplateRow[]> {
    return (await this.ds.query(
      `SELECT ${COLUMNS} FROM templates WHERE account_id = ? AND (? IS NULL OR channel = ?)
        ORDER BY created_at, id LIMIT ? OFFSET ?`,
      [accountId, channel, channel, limit, offset],
    )) as TemplateRow[];
  }

  async count(accountId: string, channel: Channel | null): Promise<number> {
    const [row] = (await this.ds.query(
      'SELECT COUNT(*) AS n FROM templates WHERE account_id = ? AND (? IS NULL OR channel = ?)',
      [accountId, channel, channel],
    )) as Array<{ n: string | number }>;
    return Number(row.n);
  }

  /** False when the template does not exist (in this account). */
  async update(accountId: string, id: string, t: TemplateFields, at: Date): Promise<boolean> {
    try {
      const result = (await this.ds.query(
        `UPDATE templates SET name = ?, channel = ?, subject = ?, body = ?, updated_at = ?
          WHERE account_id = ? AND id = ?`,
        [t.name, t.channel, t.subject, t.body, at, accountId, id],
      )) as { affectedRows: number };
      return result.affectedRows > 0;
    } catch (err) {
      if ((err as { errno?: number }).errno === MYSQL_DUP) throw new TemplateNameTaken();
      throw err;
    }
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    const result = (await this.ds.query('DELETE FROM templates WHERE account_id = ? AND id = ?', [
      accountId,
      id,
    ])) as { affectedRows: number };
    return result.affectedRows > 0;
  }
}
