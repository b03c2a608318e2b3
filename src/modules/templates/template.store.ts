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

/** Whose templates: an account's live side, or its test side (what its test keys see and send with). */
export interface TemplateOwner {
  accountId: string;
  testMode: boolean;
}

export interface TemplateFields {
  name: string;
  channel: Channel;
  subject: string | null;
  body: string;
}

const COLUMNS = 'id, account_id, name, channel, subject, body, created_at, updated_at';
const MYSQL_DUP = 1062;
/** The rows of one side of one account. */
const OWNED = 'account_id = ? AND test_mode = ?';
const mode = (owner: TemplateOwner) => (owner.testMode ? 1 : 0);

export class TemplateNameTaken extends Error {}

/** Every statement on the templates table; always scoped to one side (live or test) of one account. */
@Injectable()
export class TemplateStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async insert(owner: TemplateOwner, id: string, t: TemplateFields, at: Date): Promise<void> {
    try {
      await this.ds.query(
        `INSERT INTO templates (id, account_id, test_mode, name, channel, subject, body, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [id, owner.accountId, mode(owner), t.name, t.channel, t.subject, t.body, at, at],
      );
    } catch (err) {
      if ((err as { errno?: number }).errno === MYSQL_DUP) throw new TemplateNameTaken();
      throw err;
    }
  }

  async find(owner: TemplateOwner, id: string): Promise<TemplateRow | undefined> {
    const [row] = (await this.ds.query(`SELECT ${COLUMNS} FROM templates WHERE ${OWNED} AND id = ?`, [
      owner.accountId,
      mode(owner),
      id,
    ])) as TemplateRow[];
    return row;
  }

  async list(
    owner: TemplateOwner,
    channel: Channel | null,
    limit: number,
    offset: number,
  ): Promise<TemplateRow[]> {
    return (await this.ds.query(
      `SELECT ${COLUMNS} FROM templates WHERE ${OWNED} AND (? IS NULL OR channel = ?)
        ORDER BY created_at, id LIMIT ? OFFSET ?`,
      [owner.accountId, mode(owner), channel, channel, limit, offset],
    )) as TemplateRow[];
  }

  async count(owner: TemplateOwner, channel: Channel | null): Promise<number> {
    const [row] = (await this.ds.query(
      `SELECT COUNT(*) AS n FROM templates WHERE ${OWNED} AND (? IS NULL OR channel = ?)`,
      [owner.accountId, mode(owner), channel, channel],
    )) as Array<{ n: string | number }>;
    return Number(row.n);
  }

  /** Templates on this side of a family: the account `rootId` and its sub-accounts together. */
  async countFamily(rootId: string, testMode: boolean): Promise<number> {
    const [row] = (await this.ds.query(
      `SELECT COUNT(*) AS n FROM templates t
        WHERE t.test_mode = ? AND t.account_id IN (SELECT a.id FROM accounts a WHERE a.id = ? OR a.parent_id = ?)`,
      [testMode ? 1 : 0, rootId, rootId],
    )) as Array<{ n: string | number }>;
    return Number(row.n);
  }

  /** False when the template does not exist (on this side of this account). */
  async update(owner: TemplateOwner, id: string, t: TemplateFields, at: Date): Promise<boolean> {
    try {
      const result = (await this.ds.query(
        `UPDATE templates SET name = ?, channel = ?, subject = ?, body = ?, updated_at = ?
          WHERE ${OWNED} AND id = ?`,
        [t.name, t.channel, t.subject, t.body, at, owner.accountId, mode(owner), id],
      )) as { affectedRows: number };
      return result.affectedRows > 0;
    } catch (err) {
      if ((err as { errno?: number }).errno === MYSQL_DUP) throw new TemplateNameTaken();
      throw err;
    }
  }

  async delete(owner: TemplateOwner, id: string): Promise<boolean> {
    const result = (await this.ds.query(`DELETE FROM templates WHERE ${OWNED} AND id = ?`, [
      owner.accountId,
      mode(owner),
      id,
    ])) as { affectedRows: number };
    return result.affectedRows > 0;
  }
}
