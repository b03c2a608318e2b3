import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { firstIdOf, msOfId } from '../../database/partitions/day-partitions.js';
import type { Channel, MessageStatus } from './channel.js';
import { statusAtSend, type LockedMessage } from './message.types.js';

/** A state change as message_events recorded it, with its message as a state change is told of it. */
export interface RecordedChange {
  /** The message_events row. */
  eventId: string;
  message: LockedMessage;
  status: MessageStatus;
  reason: string | null;
  at: Date;
}

/** A message as its send answered it (the acceptance a send's events tell). */
export interface RecordedSend {
  messageId: string;
  uuid: string;
  accountId: string;
  channel: Channel;
  recipient: string;
  status: 'ACKNOWLEDGED' | 'SCHEDULED' | 'REJECTED';
  reason: string | null;
  sendRequestId: string;
  userReferenceId: string | null;
  test: boolean;
  createdAt: Date;
}

/** The tables read in id order: a message's state changes, and the messages sends made. */
export type HistoryTable = 'message_events' | 'messages';

/**
 * Reads message_events and messages in id order, for what is derived from the history after the
 * fact (the events owed to webhook endpoints that a crash kept from being kept). Both tables are
 * partitioned by message id, and every read here is a range of their primary key, which starts
 * with the row's id, bounded by a LIMIT or by both ends. A message's id tells when it was made
 * (day-partitions.ts); an event's does not.
 */
@Injectable()
export class MessageHistoryStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** The highest id of the table so far (0 when none). */
  async lastId(table: HistoryTable): Promise<string> {
    const [row] = (await this.ds.query(`SELECT COALESCE(MAX(id), 0) AS id FROM ${table}`)) as Array<{
      id: string | number;
    }>;
    return String(row.id);
  }

  /**
   * The id of the `rows`-th row after `afterId`, at most `uptoId`: where a batch of that many
   * rows ends; `uptoId` when fewer are left.
   */
  async batchEnd(table: HistoryTable, afterId: string, uptoId: string, rows: number): Promise<string> {
    const [row] = (await this.ds.query(
      `SELECT COUNT(*) AS n, MAX(id) AS id FROM (
         SELECT id FROM ${table} WHERE id > ? AND id <= ? ORDER BY id LIMIT ?) batch`,
      [afterId, uptoId, rows],
    )) as Array<{ n: string | number; id: string | number | null }>;
    return Number(row.n) < rows ? uptoId : String(row.id);
  }

  /**
   * When the rows after `afterId` start before `since`: the last id recorded before it (where a
   * catch-up that cannot reach further back goes); null when they start later, or none is there.
   * A message's time is in its id. An event's is taken as the later of its occurred_at and its
   * message's making (a receipt may carry the provider's earlier time, never before its
   * message), found by halving the ids up to the last (a probe per halving, each a
   * primary-key read of a row per partition).
   */
  async skipTo(table: HistoryTable, afterId: string, since: Date): Promise<string | null> {
    if (table === 'messages') {
      const before = String(BigInt(firstIdOf(since.getTime())) - 1n);
      if (BigInt(before) <= BigInt(afterId)) return null;
      const [old] = (await this.ds.query('SELECT id FROM messages WHERE id > ? AND id <= ? LIMIT 1', [
        afterId,
        before,
      ])) as unknown[];
      return old ? before : null;
    }
    const first = await this.eventFrom(String(BigInt(afterId) + 1n));
    if (!first || first.at >= since.getTime()) return null;
    let lo = BigInt(first.id); // recorded before `since`
    let hi = BigInt(await this.lastId(table)) + 1n; // every event from here on is not
    while (hi - lo > 1n) {
      const mid = (lo + hi) / 2n;
      const e = await this.eventFrom(String(mid));
      if (e && BigInt(e.id) < hi && e.at < since.getTime()) lo = BigInt(e.id);
      else hi = mid;
    }
    return String(lo);
  }

  /** The first event at or after `id`, with the time it was recorded at the earliest. */
  private async eventFrom(id: string): Promise<{ id: string; at: number } | undefined> {
    const [row] = (await this.ds.query(
      'SELECT id, message_id, occurred_at FROM message_events WHERE id >= ? ORDER BY id LIMIT 1',
      [id],
    )) as Array<{ id: string | number; message_id: string | number; occurred_at: Date }>;
    if (!row) return undefined;
    return { id: String(row.id), at: Math.max(row.occurred_at.getTime(), msOfId(String(row.message_id))) };
  }

  /**
   * The messages in (`afterId`, `uptoId`] of these accounts, in id order, as their send answered
   * them, with their request's fields a send's events carry (messages first, then `eq_ref`).
   */
  async sendsOf(accountIds: string[], afterId: string, uptoId: string): Promise<RecordedSend[]> {
    if (accountIds.length === 0) return [];
    const rows = (await this.ds.query(
      `SELECT STRAIGHT_JOIN m.id, m.uuid, m.account_id, m.channel, m.recipient, m.reason, m.units,
              m.send_at, m.send_request_id, m.created_at,
              r.send_at AS request_send_at, r.user_reference_id, r.test_mode
         FROM messages m
         JOIN send_requests r ON r.id = m.send_request_id
        WHERE m.id > ? AND m.id <= ? AND m.account_id IN (?)
        ORDER BY m.id`,
      [afterId, uptoId, accountIds],
    )) as Array<{
      id: string | number;
      uuid: string;
      account_id: string | number;
      channel: Channel;
      recipient: string;
      reason: string | null;
      units: number;
      send_at: Date | null;
      send_request_id: string | number;
      created_at: Date;
      request_send_at: Date | null;
      user_reference_id: string | null;
      test_mode: number;
    }>;
    return rows.map((r) => {
      const status = statusAtSend(r, r.request_send_at);
      return {
        messageId: String(r.id),
        uuid: r.uuid,
        accountId: String(r.account_id),
        channel: r.channel,
        recipient: r.recipient,
        status,
        reason: status === 'REJECTED' ? r.reason : null,
        sendRequestId: String(r.send_request_id),
        userReferenceId: r.user_reference_id,
        test: Boolean(r.test_mode),
        createdAt: r.created_at,
      };
    });
  }

  /**
   * The changes in (`afterId`, `uptoId`] of messages of these accounts, in id order, each with
   * its message and request as a committed state change carries them. The events are read first
   * (STRAIGHT_JOIN): a plan from an account's messages would read all of them.
   */
  async changesOf(accountIds: string[], afterId: string, uptoId: string): Promise<RecordedChange[]> {
    if (accountIds.length === 0) return [];
    const rows = (await this.ds.query(
      `SELECT STRAIGHT_JOIN e.id AS event_id, e.status AS event_status, e.reason AS event_reason,
              e.occurred_at, m.id, m.uuid, m.account_id, m.channel, m.recipient, m.cost,
              m.send_request_id, m.created_at, m.claimed_at, m.smpp_credential_id, m.smpp_registered_delivery,
              r.callback_url, r.user_reference_id, r.api_key_id, r.test_mode
         FROM message_events e
         JOIN messages m ON m.id = e.message_id
         JOIN send_requests r ON r.id = m.send_request_id
        WHERE e.id > ? AND e.id <= ? AND m.account_id IN (?)
        ORDER BY e.id`,
      [afterId, uptoId, accountIds],
    )) as Array<{
      event_id: string | number;
      event_status: MessageStatus;
      event_reason: string | null;
      occurred_at: Date;
      id: string | number;
      uuid: string;
      account_id: string | number;
      channel: LockedMessage['channel'];
      recipient: string;
      cost: string;
      send_request_id: string | number;
      created_at: Date;
      claimed_at: Date | null;
      smpp_credential_id: number | null;
      smpp_registered_delivery: number | null;
      callback_url: string | null;
      user_reference_id: string | null;
      api_key_id: string | number;
      test_mode: number;
    }>;
    return rows.map((r) => ({
      eventId: String(r.event_id),
      status: r.event_status,
      reason: r.event_reason,
      at: r.occurred_at,
      message: {
        id: String(r.id),
        uuid: r.uuid,
        status: r.event_status,
        account_id: String(r.account_id),
        channel: r.channel,
        recipient: r.recipient,
        cost: r.cost,
        send_request_id: String(r.send_request_id),
        callback_url: r.callback_url,
        user_reference_id: r.user_reference_id,
        api_key_id: String(r.api_key_id),
        test_mode: Boolean(r.test_mode),
        created_at: r.created_at,
        claimed_at: r.claimed_at,
        smppCredentialId: r.smpp_credential_id,
        smppRegisteredDelivery: r.smpp_registered_delivery,
      },
    }));
  }
}
