import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { NOTIFICATION_DB } from '../../database/data-sources.js';
import { quoted } from '../../database/partitions/day-partitions.js';
import { affected, iso, NOT_FINAL, type Row } from './retention.store.js';

/**
 * The statements of a prune by partition: whether a day's partition may go whole, what it
 * holds, and the rows of its messages in tables that are not cut by message id (the
 * notification database's receipts and callback attempts where their partitions do not follow
 * the messages', and the requests). Each removal takes one chunk of an id range, so the caller
 * paces them.
 */
@Injectable()
export class PartitionPruneStore {
  constructor(
    @InjectDataSource() private readonly main: DataSource,
    @InjectDataSource(NOTIFICATION_DB) private readonly notifications: DataSource,
  ) {}

  /**
   * What a day's partition holds: its messages, and whether one must stay (`held`: one not
   * final, or changed at or after `before`). A message not final is looked for by the status
   * index alone, a few entries read; only when there is none is the partition read, once, for
   * both its count and its last change (about half a second per million rows). A held day's
   * count is not read (0): it is not dropped.
   */
  async survey(partition: string, before: Date): Promise<{ held: boolean; messages: number }> {
    const waiting = (await this.main.query(
      `SELECT 1 FROM messages PARTITION (${quoted(partition)}) WHERE status IN (${NOT_FINAL}) LIMIT 1`,
    )) as unknown[];
    if (waiting.length > 0) return { held: true, messages: 0 };
    const [{ n, changed }] = (await this.main.query(
      `SELECT COUNT(*) AS n, COALESCE(MAX(updated_at) >= ?, 0) AS changed
         FROM messages PARTITION (${quoted(partition)})`,
      [before],
    )) as Array<{ n: string | number; changed: string | number }>;
    return { held: Number(changed) === 1, messages: Number(n) };
  }

  /** Rows a partition of a table holds. */
  async count(table: 'messages' | 'message_events' | 'message_parts', partition: string): Promise<number> {
    const [{ n }] = (await this.main.query(
      `SELECT COUNT(*) AS n FROM ${table} PARTITION (${quoted(partition)})`,
    )) as Array<{ n: string }>;
    return Number(n);
  }

  /** Receipts a partition of delivery_reports holds. */
  async countReports(partition: string): Promise<number> {
    const [{ n }] = (await this.notifications.query(
      `SELECT COUNT(*) AS n FROM delivery_reports PARTITION (${quoted(partition)})`,
    )) as Array<{ n: string }>;
    return Number(n);
  }

  /**
   * Whether a partition of delivery_reports holds a receipt still waiting for its message
   * (matched none yet, not given up): it is kept for late matching, so the partition stays.
   */
  async holdsWaitingReport(partition: string): Promise<boolean> {
    const rows = (await this.notifications.query(
      `SELECT 1 FROM delivery_reports PARTITION (${quoted(partition)})
        WHERE message_id IS NULL AND expired_at IS NULL LIMIT 1`,
    )) as unknown[];
    return rows.length > 0;
  }

  /**
   * Up to `limit` receipts of a partition that matched no message, after the id `after`, in
   * the archive's form (the same as the walk's unmatched receipts).
   */
  async unmatchedReports(partition: string, after: string, limit: number): Promise<Row[]> {
    return (await this.notifications.query(
      `SELECT id, message_id, transport, connector, provider_message_id, status, reason,
              ${iso('occurred_at')} AS occurred_at, ${iso('received_at')} AS received_at,
              ${iso('applied_at')} AS applied_at
         FROM delivery_reports PARTITION (${quoted(partition)})
        WHERE message_id IS NULL AND id > ? ORDER BY id LIMIT ?`,
      [after, limit],
    )) as Row[];
  }

  /** Callback attempts a partition of callback_attempts holds. */
  async countAttempts(partition: string): Promise<number> {
    const [{ n }] = (await this.notifications.query(
      `SELECT COUNT(*) AS n FROM callback_attempts PARTITION (${quoted(partition)})`,
    )) as Array<{ n: string }>;
    return Number(n);
  }

  /**
   * Up to `limit` attempts of a callback_attempts partition at events other than a message's
   * (an inbound message's, a subscribed endpoint's), after the id `after`: the columns of a
   * message's attempts in the archive, with the `event_type` that says `message_id` names
   * another subject.
   */
  async otherAttempts(partition: string, after: string, limit: number): Promise<Row[]> {
    return (await this.notifications.query(
      `SELECT id, event_id, message_id, url, attempt, outcome, http_status, error, duration_ms,
              ${iso('attempted_at')} AS attempted_at, event_type
         FROM callback_attempts PARTITION (${quoted(partition)})
        WHERE event_type <> 'message' AND id > ? ORDER BY id LIMIT ?`,
      [after, limit],
    )) as Row[];
  }

  /** Up to `limit` receipts of messages with ids in [from, to). */
  async removeReports(from: string, to: string, limit: number): Promise<number> {
    return affected(
      await this.notifications.query(
        'DELETE FROM delivery_reports WHERE message_id >= ? AND message_id < ? LIMIT ?',
        [from, to, limit],
      ),
    );
  }

  /** Up to `limit` callback attempts of messages with ids in [from, to) (webhook events stay). */
  async removeAttempts(from: string, to: string, limit: number): Promise<number> {
    return affected(
      await this.notifications.query(
        "DELETE FROM callback_attempts WHERE event_type = 'message' AND message_id >= ? AND message_id < ? LIMIT ?",
        [from, to, limit],
      ),
    );
  }

  /**
   * Up to `limit` requests with ids in [from, to), made before `before`, none of whose messages
   * is left (a request with some left keeps its summary).
   */
  async removeRequests(from: string, to: string, before: Date, limit: number): Promise<number> {
    return affected(
      await this.main.query(
        `DELETE FROM send_requests WHERE id >= ? AND id < ? AND created_at < ?
            AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.send_request_id = send_requests.id) LIMIT ?`,
        [from, to, before, limit],
      ),
    );
  }
}
