import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { READ_DB } from '../../database/read-data-source.module.js';
import type { Pool, PoolConnection } from 'mysql2';
import { Readable } from 'node:stream';
import { DataSource } from 'typeorm';
import type { Channel, MessageStatus } from './channel.js';
import { FALLBACK_JOINS, VIEW_COLUMNS } from './message-lookup.store.js';
import type { MessageView } from './message.types.js';

/** Which of an account's messages a search or an export covers. */
export interface MessageFilter {
  accountId: string;
  /** A test key sees its account's test requests only; a live key and the CLI the live ones. */
  testMode?: boolean;
  status?: MessageStatus;
  channel?: Channel;
  recipient?: string;
  /** Only these requests' messages (from api_reference and user_reference_id); empty matches none. */
  sendRequestIds?: string[];
  /** Inclusive. */
  createdFrom?: Date;
  /** Exclusive. */
  createdTo?: Date;
}

/** A place in the search order (created_at, then id): the last message of the previous page. */
export interface SearchPosition {
  createdAt: Date;
  id: string;
}

/** Oldest first (asc) or newest first (desc), by created_at, then id. */
export type SearchDirection = 'asc' | 'desc';

/** A message as an export writes it. */
export interface ExportRow {
  id: string;
  uuid: string;
  channel: Channel;
  send_request_id: string;
  user_reference_id: string | null;
  recipient: string;
  status: MessageStatus;
  reason: string | null;
  units: number;
  cost: string;
  currency: string;
  /** ISO 8601, UTC. */
  created_at: string;
  updated_at: string;
  /** A chat message's fallback SMS (its UUID), null when it has none. */
  fallback_message_id: string | null;
  /** A fallback SMS: its chat message's UUID; null for any other message. */
  fallback_of: string | null;
  /** Submitted over SMPP: the decimal id its client holds; null for any other message. */
  smpp_message_id?: string | null;
}

/** An export under way: its rows, and how to stop it. */
export interface ExportQuery {
  rows: Readable;
  /** Stops the query if it still runs and gives its connection back; safe to call again. */
  close(): Promise<void>;
}

/**
 * A DATETIME(3) as ISO 8601 text (sessions run in UTC). Formatted by MySQL: building a Date per
 * column in the driver and printing it again cost the export a fifth of its CPU.
 */
const iso = (column: string) => `CONCAT(LEFT(DATE_FORMAT(${column}, '%Y-%m-%dT%H:%i:%s.%f'), 23), 'Z')`;

const EXPORT_COLUMNS = `m.id, m.uuid, m.channel, m.send_request_id, r.user_reference_id, m.recipient, m.status,
  m.reason, m.units, m.cost, r.currency, ${iso('m.created_at')} AS created_at, ${iso('m.updated_at')} AS updated_at,
  f.uuid AS fallback_message_id, o.uuid AS fallback_of, IF(m.smpp_credential_id IS NULL, NULL, m.id) AS smpp_message_id`;

/** Marks the export statement, so an operator (and a test) can find it in the process list. */
export const EXPORT_MARKER = '/* messages-export */';

/**
 * The index that serves a filter, named so the plan never depends on statistics: on an account
 * that is most of the table the optimizer preferred a full scan and a sort of every row. Each
 * index is (account_id, column, created_at) plus the primary key, so rows come out in the
 * search order with no sort; a request's messages (few, by ix_messages_request) are sorted.
 */
function indexFor(f: MessageFilter): string {
  if (f.sendRequestIds) return 'ix_messages_request';
  if (f.recipient !== undefined) return 'ix_messages_account_recipient_created';
  if (f.status) return 'ix_messages_account_status_created';
  if (f.channel) return 'ix_messages_account_channel_created';
  return 'ix_messages_account_created';
}

/**
 * The SELECT for a filter, after an optional position, in the search order. Its text is made of
 * constants only (`lead`, the columns and the index name are constants of this file); every
 * value goes in as a `?` parameter.
 */
export function searchSql(
  columns: string,
  f: MessageFilter,
  after: SearchPosition | null,
  limit: number | null,
  lead = '',
  direction: SearchDirection = 'asc',
): { sql: string; params: unknown[] } {
  const desc = direction === 'desc';
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (condition: string, ...values: unknown[]) => {
    where.push(condition);
    params.push(...values);
  };
  add('m.account_id = ?', f.accountId);
  add('r.test_mode = ?', f.testMode ? 1 : 0);
  if (f.status) add('m.status = ?', f.status);
  if (f.channel) add('m.channel = ?', f.channel);
  if (f.recipient !== undefined) add('m.recipient = ?', f.recipient);
  if (f.sendRequestIds) add('m.send_request_id IN (?)', f.sendRequestIds);
  if (f.createdFrom) add('m.created_at >= ?', f.createdFrom);
  if (f.createdTo) add('m.created_at < ?', f.createdTo);
  if (after && desc)
    add('(m.created_at < ? OR (m.created_at = ? AND m.id < ?))', after.createdAt, after.createdAt, after.id);
  else if (after)
    add('(m.created_at > ? OR (m.created_at = ? AND m.id > ?))', after.createdAt, after.createdAt, after.id);
  // The same index read backwards for newest first: still no sort.
  let sql = `${lead} SELECT ${columns}
               FROM messages m FORCE INDEX (${indexFor(f)}) JOIN send_requests r ON r.id = m.send_request_id
                    ${FALLBACK_JOINS}
              WHERE ${where.join(' AND ')}
              ORDER BY ${desc ? 'm.created_at DESC, m.id DESC' : 'm.created_at, m.id'}`;
  if (limit !== null) {
    sql += ' LIMIT ?';
    params.push(limit);
  }
  return { sql, params };
}

/**
 * Search, export and request summaries: the read side of the message tables. It reads from
 * DATABASE_READ_URL when set (a replica: answers may lag the writes by a moment).
 */
@Injectable()
export class MessageSearchStore {
  constructor(@InjectDataSource(READ_DB) private readonly ds: DataSource) {}

  /** The account's requests (one per channel at most) that carry this user_reference_id. */
  async requestIdsByReference(
    accountId: string,
    userReferenceId: string,
    testMode = false,
  ): Promise<string[]> {
    const rows = (await this.ds.query(
      'SELECT id FROM send_requests WHERE account_id = ? AND test_mode = ? AND user_reference_id = ?',
      [accountId, testMode ? 1 : 0, userReferenceId],
    )) as Array<{ id: string }>;
    return rows.map((r) => String(r.id));
  }

  /** Up to `limit` messages after the position, in the search order. */
  async page(
    f: MessageFilter,
    after: SearchPosition | null,
    limit: number,
    direction: SearchDirection = 'asc',
  ): Promise<MessageView[]> {
    if (f.sendRequestIds?.length === 0) return [];
    const { sql, params } = searchSql(VIEW_COLUMNS, f, after, limit, '', direction);
    return (await this.ds.query(sql, params)) as MessageView[];
  }

  /** The statement a page runs, as EXPLAIN shows its plan. */
  async explainPage(
    f: MessageFilter,
    after: SearchPosition | null,
    limit: number | null,
    direction: SearchDirection = 'asc',
  ) {
    const { sql, params } = searchSql(VIEW_COLUMNS, f, after, limit, 'EXPLAIN', direction);
    return (await this.ds.query(sql, params)) as Array<Record<string, unknown>>;
  }

  /**
   * Every message of the filter, streamed on a connection of its own: mysql2 pauses the socket
   * when the reader falls behind, so memory stays flat however many rows. Resolves once MySQL
   * has accepted the statement (its errors reject here, before anything is written).
   */
  async openExport(f: MessageFilter): Promise<ExportQuery> {
    if (f.sendRequestIds?.length === 0) return { rows: Readable.from([]), close: async () => undefined };
    const conn = await this.connection();
    const { sql, params } = searchSql(EXPORT_COLUMNS, f, null, null, EXPORT_MARKER);
    const query = conn.query(sql, params);
    let ended = false;
    const finished = new Promise<void>((resolve) => query.once('end', () => ((ended = true), resolve())));
    // Without a listener an error after a cancel would be thrown from mysql2's packet handler.
    query.on('error', () => undefined);
    const rows = query.stream({ highWaterMark: 500 });
    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        if (ended) return conn.release();
        rows.destroy();
        // KILL QUERY stops the server's work at once; the connection is then dropped rather
        // than reused, in case the statement ended just before the KILL arrived.
        await this.ds.query('KILL QUERY ?', [conn.threadId]).catch(() => undefined);
        await finished;
        conn.destroy();
      })());
    rows.once('close', () => void close());
    try {
      await new Promise<void>((resolve, reject) => {
        query.once('fields', () => resolve());
        query.once('error', reject);
      });
    } catch (err) {
      await finished;
      conn.release();
      throw err;
    }
    return { rows, close };
  }

  private connection(): Promise<PoolConnection> {
    const pool = (this.ds.driver as unknown as { pool: Pool }).pool;
    return new Promise((resolve, reject) =>
      pool.getConnection((err, conn) => (err ? reject(err) : resolve(conn))),
    );
  }

  /** A request of the account with what its summary needs, or undefined. */
  async summary(accountId: string, sendRequestId: string, testMode = false) {
    const [request] = (await this.ds.query(
      `SELECT id, channel, created_at, send_at, cost, currency FROM send_requests
        WHERE id = ? AND account_id = ? AND test_mode = ?`,
      [sendRequestId, accountId, testMode ? 1 : 0],
    )) as Array<{
      id: string;
      channel: Channel;
      created_at: Date;
      send_at: Date | null;
      cost: string;
      currency: string;
    }>;
    if (!request) return undefined;
    const counts = (await this.ds.query(
      `SELECT status, COUNT(*) AS n, COALESCE(SUM(units), 0) AS units
         FROM messages WHERE send_request_id = ? GROUP BY status`,
      [sendRequestId],
    )) as Array<{ status: MessageStatus; n: string; units: string }>;
    return { request, counts };
  }
}
