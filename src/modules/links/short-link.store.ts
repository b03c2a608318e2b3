import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { sqlDateTime } from '../../database/data-sources.js';
import type { Statement } from '../../database/statement.js';

/** A link of a message as the send stores it, in the transaction of its message. */
export interface NewShortLink {
  code: string;
  messageId: string;
  /** Its place among the message's links, from 0. */
  position: number;
  url: string;
  createdAt: Date;
}

/** What the redirect reads of a code. */
export interface LiveLink {
  url: string;
  message_id: string;
}

/** A code's row as the redirect reads it, with when it was made (it expires LINK_RETENTION_DAYS later). */
export interface FoundLink extends LiveLink {
  created_at: Date;
}

/** A message's link as its lookup shows it. */
export interface MessageLinkRow {
  code: string;
  url: string;
  clicks: number;
  first_click_at: Date | null;
}

/** Clicks and previews of one code since the last write, with the times of the clicks. */
export interface ClickTally {
  code: string;
  clicks: number;
  previews: number;
  firstAt: Date | null;
  lastAt: Date | null;
}

const INSERT_CHUNK = 2000;
const COLUMNS = '(code, message_id, position, url, created_at)';
const ROW = '(?, ?, ?, ?, ?)';
/** Tallies written per UPDATE. */
const CLICK_CHUNK = 500;

type Runner = DataSource | EntityManager;

/** The multi-row INSERTs of a send's links, run by the send committer in the messages' transaction. */
export function shortLinksInserts(links: NewShortLink[]): Statement[] {
  const out: Statement[] = [];
  for (let i = 0; i < links.length; i += INSERT_CHUNK) {
    const chunk = links.slice(i, i + INSERT_CHUNK);
    const params: unknown[] = [];
    for (const l of chunk) params.push(l.code, l.messageId, l.position, l.url, sqlDateTime(l.createdAt));
    out.push({
      sql: `INSERT INTO short_links ${COLUMNS} VALUES ${new Array(chunk.length).fill(ROW).join(',')}`,
      params,
    });
  }
  return out;
}

/**
 * short_links: one row per link of a message (code, target, click counts). Codes are random
 * (link-text.ts); the primary key makes the redirect one read of one index page.
 */
@Injectable()
export class ShortLinkStore {
  constructor(@InjectDataSource() private readonly main: DataSource) {}

  /** Inside the send's transaction, when it is written statement by statement. */
  async insert(em: EntityManager, links: NewShortLink[]): Promise<void> {
    for (const s of shortLinksInserts(links)) await em.query(s.sql, s.params);
  }

  /** A code's target and age; undefined for a code there is no row of. */
  async find(code: string): Promise<FoundLink | undefined> {
    const rows = (await this.main.query(
      'SELECT url, message_id, created_at FROM short_links WHERE code = ?',
      [code],
    )) as FoundLink[];
    const row = rows[0];
    return row && { url: row.url, message_id: String(row.message_id), created_at: row.created_at };
  }

  /** Whose messages these are (account and side) and their public ids, for the events of their clicks. */
  async ownersOf(
    messageIds: string[],
  ): Promise<Map<string, { account_id: string; test_mode: number; message_id: string }>> {
    if (messageIds.length === 0) return new Map();
    const rows = (await this.main.query(
      `SELECT m.id, m.account_id, r.test_mode, IF(m.channel = 'email', CAST(m.id AS CHAR), m.uuid) AS message_id
         FROM messages m JOIN send_requests r ON r.id = m.send_request_id WHERE m.id IN (?)`,
      [messageIds],
    )) as Array<{ id: string; account_id: string; test_mode: number; message_id: string }>;
    return new Map(rows.map((r) => [String(r.id), { ...r, account_id: String(r.account_id) }]));
  }

  /**
   * Adds tallies to their rows (a code removed meanwhile is skipped): counts add up, the first
   * click time only moves earlier and the last only later, so writes from several processes, in
   * any order, give the same result.
   */
  async addClicks(tallies: ClickTally[]): Promise<void> {
    for (let i = 0; i < tallies.length; i += CLICK_CHUNK) {
      const chunk = tallies.slice(i, i + CLICK_CHUNK);
      const params: unknown[] = [];
      for (const t of chunk)
        params.push(t.code, t.clicks, t.previews, sqlDateTime(t.firstAt), sqlDateTime(t.lastAt));
      const first = 'SELECT ? AS code, ? AS clicks, ? AS previews, ? AS first_at, ? AS last_at';
      const rest = new Array(chunk.length - 1).fill(' UNION ALL SELECT ?, ?, ?, ?, ?').join('');
      await this.main.query(
        `UPDATE short_links l JOIN (${first}${rest}) c ON c.code = l.code
            SET l.clicks = l.clicks + c.clicks,
                l.previews = l.previews + c.previews,
                l.first_click_at = CASE WHEN c.first_at IS NULL THEN l.first_click_at
                                        WHEN l.first_click_at IS NULL THEN c.first_at
                                        ELSE LEAST(l.first_click_at, c.first_at) END,
                l.last_click_at = CASE WHEN c.last_at IS NULL THEN l.last_click_at
                                       WHEN l.last_click_at IS NULL THEN c.last_at
                                       ELSE GREATEST(l.last_click_at, c.last_at) END`,
        params,
      );
    }
  }

  /** A message's links, in the order of its text. */
  async ofMessage(messageId: string): Promise<MessageLinkRow[]> {
    return (await this.main.query(
      'SELECT code, url, clicks, first_click_at FROM short_links WHERE message_id = ? ORDER BY position',
      [messageId],
    )) as MessageLinkRow[];
  }

  /** Removes the links of these messages (a prune's batch, an erasure); the count removed. */
  async removeOfMessages(messageIds: string[], runner: Runner = this.main): Promise<number> {
    let removed = 0;
    for (let i = 0; i < messageIds.length; i += INSERT_CHUNK)
      removed += affected(
        await runner.query('DELETE FROM short_links WHERE message_id IN (?)', [
          messageIds.slice(i, i + INSERT_CHUNK),
        ]),
      );
    return removed;
  }

  /** Up to `limit` short links of messages with ids in [from, to) (a day's partition dropped whole). */
  async removeOfMessageRange(from: string, to: string, limit: number): Promise<number> {
    return affected(
      await this.main.query('DELETE FROM short_links WHERE message_id >= ? AND message_id < ? LIMIT ?', [
        from,
        to,
        limit,
      ]),
    );
  }

  /** Removes up to `limit` links created before `before` (expired); the count removed. */
  async removeExpired(before: Date, limit: number): Promise<number> {
    return affected(
      await this.main.query('DELETE FROM short_links WHERE created_at < ? ORDER BY created_at LIMIT ?', [
        sqlDateTime(before),
        limit,
      ]),
    );
  }
}

const affected = (r: unknown) => Number((r as { affectedRows?: number }).affectedRows ?? 0);
