import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { MessageStatus } from './channel.js';
import type { LockedMessage } from './message.types.js';

/** A state change as message_events recorded it, with its message as a state change is told of it. */
export interface RecordedChange {
  /** The message_events row. */
  eventId: string;
  message: LockedMessage;
  status: MessageStatus;
  reason: string | null;
  at: Date;
}

/**
 * Reads message_events in id order, for what is derived from the history after the fact (the
 * events owed to webhook endpoints and callback URLs that a crash kept from being kept). The
 * table is partitioned by message id, not by its own id: every read here is a range of the
 * primary key, which starts with the event's id, bounded by a LIMIT or by both ends.
 */
@Injectable()
export class MessageHistoryStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** The highest event id so far (0 when none). */
  async lastId(): Promise<string> {
    const [row] = (await this.ds.query('SELECT COALESCE(MAX(id), 0) AS id FROM message_events')) as Array<{
      id: string | number;
    }>;
    return String(row.id);
  }

  /**
   * The id of the `rows`-th event after `afterId`, at most `uptoId`: where a batch of that many
   * events ends; `uptoId` when fewer are left.
   */
  async batchEnd(afterId: string, uptoId: string, rows: number): Promise<string> {
    const [row] = (await this.ds.query(
      `SELECT COUNT(*) AS n, MAX(id) AS id FROM (
         SELECT id FROM message_events WHERE id > ? AND id <= ? ORDER BY id LIMIT ?) batch`,
      [afterId, uptoId, rows],
    )) as Array<{ n: string | number; id: string | number | null }>;
    return Number(row.n) < rows ? uptoId : String(row.id);
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
