import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Channel, MessageStatus } from './channel.js';
import type { MessageView } from './message.types.js';
import { idOfUuid } from './message-uuid.js';

/**
 * A message's chat-to-SMS links, joined to messages m and its send_requests r: f is the SMS made
 * for a chat message (fallback_of is unique), o the chat message an SMS stands in for. Each is
 * one unique-index read per row, skipped where there is nothing to find: f only for requests
 * that asked for a fallback, o only where m.fallback_of is set (a NULL key is never looked up).
 */
export const FALLBACK_JOINS = `LEFT JOIN messages f ON r.fallback_after_seconds IS NOT NULL AND f.fallback_of = m.id
  LEFT JOIN messages o ON o.id = m.fallback_of`;

/** A message as the lookups show it (a MessageView), from messages m joined to send_requests r and FALLBACK_JOINS. */
export const VIEW_COLUMNS = `m.id, m.uuid, m.channel, m.send_request_id, m.recipient, m.status, m.reason, m.units, m.cost,
                     r.currency, r.user_reference_id, m.created_at, m.sent_at, m.completed_at,
                     m.attempts, m.last_error, COALESCE(m.send_at, r.send_at) AS send_at, r.valid_until, m.connector,
                     CONCAT(f.uuid, ' ', f.status) AS fallback, o.uuid AS fallback_of,
                     IF(m.smpp_credential_id IS NULL, NULL, m.id) AS smpp_message_id`;
const VIEW = `SELECT ${VIEW_COLUMNS} FROM messages m JOIN send_requests r ON r.id = m.send_request_id ${FALLBACK_JOINS}`;

/**
 * A read by UUID: first by the id the UUID carries (messages/message-uuid.ts), one primary-key
 * read in one partition; then, when that finds nothing (a UUID made before UUIDs carried the
 * id, or none of ours), by the UUID alone, a read of its index in every partition.
 */
async function byUuid<T>(uuid: string, read: (id?: string) => Promise<T[]>): Promise<T[]> {
  const id = idOfUuid(uuid);
  const rows = id ? await read(id) : [];
  return rows.length ? rows : read();
}

/** The statements that read one message, one request's messages or a message's history back. */
@Injectable()
export class MessageLookupStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** One message of an account, by its UUID (lower case) or its numeric id. */
  async findOwned(
    accountId: string,
    by: { uuid: string } | { id: string },
    testMode = false,
  ): Promise<MessageView | undefined> {
    const mode = testMode ? 1 : 0;
    const rows = (
      'uuid' in by
        ? await byUuid(
            by.uuid,
            (id) =>
              this.ds.query(
                `${VIEW} WHERE m.uuid = ? ${id ? 'AND m.id = ?' : ''} AND m.account_id = ? AND r.test_mode = ?`,
                [by.uuid, ...(id ? [id] : []), accountId, mode],
              ) as Promise<MessageView[]>,
          )
        : await this.ds.query(`${VIEW} WHERE m.id = ? AND m.account_id = ? AND r.test_mode = ?`, [
            by.id,
            accountId,
            mode,
          ])
    ) as MessageView[];
    return rows[0];
  }

  /** Who a message went to, by its UUID alone (the e-mail unsubscribe token). */
  async findRecipientByUuid(
    uuid: string,
  ): Promise<{ account_id: string; channel: Channel; recipient: string; test_mode: number } | undefined> {
    const rows = await byUuid(
      uuid,
      (id) =>
        this.ds.query(
          `SELECT m.account_id, m.channel, m.recipient, r.test_mode
             FROM messages m JOIN send_requests r ON r.id = m.send_request_id WHERE m.uuid = ? ${id ? 'AND m.id = ?' : ''}`,
          [uuid, ...(id ? [id] : [])],
        ) as Promise<Array<{ account_id: string; channel: Channel; recipient: string; test_mode: number }>>,
    );
    return rows[0];
  }

  /**
   * The latest message the account accepted (priced) for a recipient since `since`, among its
   * test or its live requests: what an inbound reply answers.
   */
  async latestAcceptedTo(
    accountId: string,
    channel: Channel,
    recipient: string,
    since: Date,
    testMode = false,
  ): Promise<{ id: string; uuid: string } | undefined> {
    const rows = (await this.ds.query(
      `SELECT m.id, m.uuid FROM messages m JOIN send_requests r ON r.id = m.send_request_id
        WHERE m.account_id = ? AND m.recipient = ? AND m.created_at >= ? AND m.channel = ? AND m.units > 0
          AND r.test_mode = ?
        ORDER BY m.created_at DESC, m.id DESC LIMIT 1`,
      [accountId, recipient, since, channel, testMode ? 1 : 0],
    )) as Array<{ id: string; uuid: string }>;
    return rows[0];
  }

  /** Each message's sender, recipient, acceptance time and first `chars` characters (an SMPP receipt quotes them). */
  async sendersAndTextStarts(
    ids: string[],
    chars: number,
  ): Promise<Map<string, { sender: string; recipient: string; createdAt: Date; text: string }>> {
    if (ids.length === 0) return new Map();
    const rows = (await this.ds.query(
      `SELECT m.id, r.sender, m.recipient, m.created_at, LEFT(COALESCE(m.body, r.body), ?) AS text
         FROM messages m JOIN send_requests r ON r.id = m.send_request_id WHERE m.id IN (?)`,
      [chars, ids],
    )) as Array<{
      id: string;
      sender: string | null;
      recipient: string;
      created_at: Date;
      text: string | null;
    }>;
    return new Map(
      rows.map((r) => [
        String(r.id),
        { sender: r.sender ?? '', recipient: r.recipient, createdAt: r.created_at, text: r.text ?? '' },
      ]),
    );
  }

  /** A message's state changes after acceptance, oldest first. */
  async history(
    messageId: string,
  ): Promise<Array<{ status: MessageStatus; reason: string | null; occurred_at: Date }>> {
    return (await this.ds.query(
      'SELECT status, reason, occurred_at FROM message_events WHERE message_id = ? ORDER BY id',
      [messageId],
    )) as Array<{ status: MessageStatus; reason: string | null; occurred_at: Date }>;
  }

  /** Whether the request exists and belongs to the account, made with a key of the same mode. */
  async ownsRequest(accountId: string, sendRequestId: string, testMode = false): Promise<boolean> {
    const rows = (await this.ds.query(
      'SELECT id FROM send_requests WHERE id = ? AND account_id = ? AND test_mode = ?',
      [sendRequestId, accountId, testMode ? 1 : 0],
    )) as unknown[];
    return rows.length > 0;
  }

  /** One page of a request's messages in id order, and how many it has in all. */
  async page(
    sendRequestId: string,
    limit: number,
    offset: number,
  ): Promise<{ total: number; rows: MessageView[] }> {
    const [{ total }] = (await this.ds.query(
      'SELECT COUNT(*) AS total FROM messages WHERE send_request_id = ?',
      [sendRequestId],
    )) as Array<{ total: string }>;
    const rows = (await this.ds.query(`${VIEW} WHERE m.send_request_id = ? ORDER BY m.id LIMIT ? OFFSET ?`, [
      sendRequestId,
      limit,
      offset,
    ])) as MessageView[];
    return { total: Number(total), rows };
  }
}
