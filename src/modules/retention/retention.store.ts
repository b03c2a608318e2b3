import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { retentionLockName, withNamedLock } from '../../database/named-lock.js';
import { NOTIFICATION_DB } from '../../database/data-sources.js';
import { ALLOWED_FROM } from '../delivery/lifecycle/transitions.js';
import { MESSAGE_STATUSES, type MessageStatus } from '../messages/channel.js';
import { FALLBACK_JOINS } from '../messages/message-lookup.store.js';
import type { ExportRow } from '../messages/message-search.store.js';
import { ShortLinkStore } from '../links/short-link.store.js';

/** The states no other state is reached from: a message in one of them never changes again. */
export const FINAL_STATES: readonly MessageStatus[] = MESSAGE_STATUSES.filter(
  (s) => !Object.values(ALLOWED_FROM).some((from) => from.includes(s)),
);
/** FINAL_STATES as an SQL list (constants only). */
export const FINAL = FINAL_STATES.map((s) => `'${s}'`).join(',');
/** The other states as an SQL list: `status IN` it reads a range of the status index, `NOT IN (FINAL)` all of it. */
export const NOT_FINAL = MESSAGE_STATUSES.filter((s) => !FINAL_STATES.includes(s))
  .map((s) => `'${s}'`)
  .join(',');

/** The prune's walk over `messages m`: final, last changed before `?`, after one id and before another, in id order. */
const WALK = `WHERE m.id > ? AND m.id < ? AND m.status IN (${FINAL}) AND m.updated_at < ? ORDER BY m.id LIMIT ?`;

/** A DATETIME(3) as ISO 8601 text, as the export writes it (sessions run in UTC). */
export const iso = (column: string) =>
  `IF(${column} IS NULL, NULL, CONCAT(LEFT(DATE_FORMAT(${column}, '%Y-%m-%dT%H:%i:%s.%f'), 23), 'Z'))`;

/** A message as it is archived: the export's row, and whose it is. */
export interface RetainedMessage extends ExportRow {
  account_id: string;
}

export type Row = Record<string, unknown>;

/** A message's rows in the other tables, as they are archived. */
export interface RelatedRows {
  message_events: Row[];
  message_parts: Row[];
  delivery_reports: Row[];
  callback_attempts: Row[];
}

/** Rows each table lost. */
export interface RemovedCounts {
  messages: number;
  message_events: number;
  message_parts: number;
  send_requests: number;
  delivery_reports: number;
  callback_attempts: number;
  short_links: number;
}

export const NO_REMOVALS: RemovedCounts = {
  messages: 0,
  message_events: 0,
  message_parts: 0,
  send_requests: 0,
  delivery_reports: 0,
  callback_attempts: 0,
  short_links: 0,
};

export const addCounts = (a: RemovedCounts, b: RemovedCounts): RemovedCounts => ({
  messages: a.messages + b.messages,
  message_events: a.message_events + b.message_events,
  message_parts: a.message_parts + b.message_parts,
  send_requests: a.send_requests + b.send_requests,
  delivery_reports: a.delivery_reports + b.delivery_reports,
  callback_attempts: a.callback_attempts + b.callback_attempts,
  short_links: a.short_links + b.short_links,
});

export const affected = (r: unknown) => Number((r as { affectedRows?: number }).affectedRows ?? 0);

/**
 * The statements that remove old messages and everything kept about them, across the main and
 * notification databases. Removal by age touches the tables of several modules (messages,
 * delivery, callbacks); it is kept here, in one file, so the order of the removals and the
 * rule "final messages only" are read in one place. Ledger, balances and spend rows are never
 * named here.
 */
@Injectable()
export class RetentionStore {
  constructor(
    @InjectDataSource() private readonly main: DataSource,
    @InjectDataSource(NOTIFICATION_DB) private readonly notifications: DataSource,
    private readonly links: ShortLinkStore,
  ) {}

  /**
   * Up to `limit` final messages after id `after`, last changed before `before`, in id order.
   * Ids grow with time (their first 13 digits are the creation's epoch milliseconds), so the
   * walk stops at `idBound` instead of reading the table's recent end.
   */
  async candidates(after: string, idBound: string, before: Date, limit: number): Promise<RetainedMessage[]> {
    return (await this.main.query(
      `SELECT m.id, m.uuid, m.account_id, m.channel, m.send_request_id, r.user_reference_id, m.recipient,
              m.status, m.reason, m.units, m.cost, r.currency,
              ${iso('m.created_at')} AS created_at, ${iso('m.updated_at')} AS updated_at,
              f.uuid AS fallback_message_id, o.uuid AS fallback_of
         FROM messages m FORCE INDEX (PRIMARY) LEFT JOIN send_requests r ON r.id = m.send_request_id
              ${FALLBACK_JOINS}
        ${WALK}`,
      [after, idBound, before, limit],
    )) as RetainedMessage[];
  }

  /**
   * The same walk as `candidates` when nothing is archived: only what removal needs (the id and
   * the request), so no join and no date formatting is paid for rows that are deleted unread.
   */
  async removable(
    after: string,
    idBound: string,
    before: Date,
    limit: number,
  ): Promise<Array<Pick<RetainedMessage, 'id' | 'send_request_id'>>> {
    return (await this.main.query(
      `SELECT m.id, m.send_request_id FROM messages m FORCE INDEX (PRIMARY)
        ${WALK}`,
      [after, idBound, before, limit],
    )) as Array<Pick<RetainedMessage, 'id' | 'send_request_id'>>;
  }

  /** The events, parts, receipts and callback attempts of these messages. */
  related(ids: string[]): Promise<RelatedRows> {
    return this.relatedWhere('message_id IN (?)', [ids]);
  }

  /**
   * The events, parts, receipts and callback attempts of these messages, `ids` in id order and
   * all of them after `after`: read by the range their ids span, not by the list, then kept to
   * the list's. A list of ten thousand ids costs MariaDB about 0.75 s a table on a partitioned
   * table (each value is placed in the partitions and the index one by one); the range, a few
   * milliseconds. For a day's batch, whose messages are every one of that range.
   */
  async relatedOfRange(after: string, ids: string[]): Promise<RelatedRows> {
    const rows = await this.relatedWhere('message_id > ? AND message_id <= ?', [after, ids[ids.length - 1]]);
    const wanted = new Set(ids);
    const keep = (list: Row[]) => list.filter((r) => wanted.has(String(r.message_id)));
    return {
      message_events: keep(rows.message_events),
      message_parts: keep(rows.message_parts),
      delivery_reports: keep(rows.delivery_reports),
      callback_attempts: keep(rows.callback_attempts),
    };
  }

  private async relatedWhere(where: string, params: unknown[]): Promise<RelatedRows> {
    const [events, parts, reports, attempts] = await Promise.all([
      this.main.query(
        `SELECT message_id, status, reason, ${iso('occurred_at')} AS occurred_at
           FROM message_events WHERE ${where} ORDER BY message_id, id`,
        params,
      ),
      this.main.query(
        `SELECT message_id, part, provider_message_id, status, reason, ${iso('reported_at')} AS reported_at
           FROM message_parts WHERE ${where} ORDER BY message_id, part`,
        params,
      ),
      this.notifications.query(
        `SELECT id, message_id, transport, connector, provider_message_id, status, reason,
                ${iso('occurred_at')} AS occurred_at, ${iso('received_at')} AS received_at,
                ${iso('applied_at')} AS applied_at
           FROM delivery_reports WHERE ${where} ORDER BY id`,
        params,
      ),
      this.notifications.query(
        `SELECT id, event_id, message_id, url, attempt, outcome, http_status, error, duration_ms,
                ${iso('attempted_at')} AS attempted_at
           FROM callback_attempts WHERE event_type = 'message' AND ${where} ORDER BY id`,
        params,
      ),
    ]);
    return {
      message_events: events as Row[],
      message_parts: parts as Row[],
      delivery_reports: reports as Row[],
      callback_attempts: attempts as Row[],
    };
  }

  /**
   * Removes the messages and their rows: the notification database's first, then the main
   * database's in one transaction, the messages last. A run cut short in between leaves the
   * messages in place, and the next run finds them again.
   */
  async remove(ids: string[], requestIds: string[], before: Date): Promise<RemovedCounts> {
    const reports = await this.notifications.query('DELETE FROM delivery_reports WHERE message_id IN (?)', [
      ids,
    ]);
    const attempts = await this.notifications.query(
      "DELETE FROM callback_attempts WHERE event_type = 'message' AND message_id IN (?)",
      [ids],
    );
    const counts = await this.main.transaction(async (em) => ({
      message_events: affected(await em.query('DELETE FROM message_events WHERE message_id IN (?)', [ids])),
      message_parts: affected(await em.query('DELETE FROM message_parts WHERE message_id IN (?)', [ids])),
      // A pruned message's short links answer 404 from then on.
      short_links: await this.links.removeOfMessages(ids, em),
      // The state is asked again: only a final message is ever removed.
      messages: affected(
        await em.query(`DELETE FROM messages WHERE id IN (?) AND status IN (${FINAL})`, [ids]),
      ),
    }));
    // A request goes once none of its messages is left; a request with some left keeps its summary.
    const requests = await this.main.query(
      `DELETE FROM send_requests WHERE id IN (?) AND created_at < ?
          AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.send_request_id = send_requests.id)`,
      [requestIds, before],
    );
    return {
      ...counts,
      send_requests: affected(requests),
      delivery_reports: affected(reports),
      callback_attempts: affected(attempts),
    };
  }

  /**
   * Rows the main database's server has inserted and updated since it started, for every
   * connection: its global status counters `Handler_write` and `Handler_update` (MariaDB and
   * MySQL both keep them; internal temporary tables count apart). The prune removes only, so what
   * this counts between two of its batches was written by others, sends and dispatch above all.
   */
  async rowsWritten(): Promise<number> {
    const rows = (await this.main.query(
      "SHOW GLOBAL STATUS WHERE Variable_name IN ('Handler_write', 'Handler_update')",
    )) as Array<{ Variable_name: string; Value: string }>;
    return rows.reduce((n, r) => n + Number(r.Value), 0);
  }

  /** Receipts that matched no message and were given up, received before `before`: up to `limit`. */
  async unmatchedReceipts(before: Date, limit: number): Promise<Row[]> {
    return (await this.notifications.query(
      `SELECT id, message_id, transport, connector, provider_message_id, status, reason,
              ${iso('occurred_at')} AS occurred_at, ${iso('received_at')} AS received_at,
              ${iso('applied_at')} AS applied_at
         FROM delivery_reports FORCE INDEX (ix_delivery_reports_unapplied)
        WHERE applied_at IS NULL AND expired_at IS NOT NULL AND received_at < ?
        ORDER BY expired_at, received_at LIMIT ?`,
      [before, limit],
    )) as Row[];
  }

  async removeReceipts(ids: string[]): Promise<number> {
    return affected(await this.notifications.query('DELETE FROM delivery_reports WHERE id IN (?)', [ids]));
  }

  /** Runs `work` under a named lock (database/named-lock.ts); undefined when another process holds it. */
  async exclusively<T>(name: string, work: () => Promise<T>, waitSeconds = 0): Promise<T | undefined> {
    return withNamedLock(this.main, name, work, waitSeconds);
  }

  /** The lock's name: one per main database, so separate installations on one server do not wait for each other. */
  lockName(): string {
    return retentionLockName(this.main);
  }
}
