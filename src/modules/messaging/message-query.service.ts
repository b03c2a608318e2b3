import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/errors/app.exception.js';
import { toNumber } from '../balance/money.js';
import type { Channel, MessageStatus } from './channel.js';

interface Row {
  id: string;
  uuid: string;
  channel: Channel;
  send_request_id: string;
  recipient: string;
  status: MessageStatus;
  reason: string | null;
  units: number;
  cost: string;
  currency: string;
  user_reference_id: string | null;
  created_at: Date;
  sent_at: Date | null;
  completed_at: Date | null;
  attempts: number;
  last_error: string | null;
}

const SELECT = `SELECT m.id, m.uuid, m.channel, m.send_request_id, m.recipient, m.status, m.reason, m.units, m.cost,
                       r.currency, r.user_reference_id, m.created_at, m.sent_at, m.completed_at,
                       m.attempts, m.last_error
                  FROM messages m JOIN send_requests r ON r.id = m.send_request_id`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const notFound = () => new AppException('NOT_FOUND', 'No such message.');

/** Status lookup beyond the interface: only the caller's own messages; anyone else's is 404. */
@Injectable()
export class MessageQueryService {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async one(accountId: string, messageId: string) {
    let rows: Row[];
    if (UUID.test(messageId))
      rows = await this.ds.query(`${SELECT} WHERE m.uuid = ? AND m.account_id = ?`, [
        messageId.toLowerCase(),
        accountId,
      ]);
    else if (/^\d{1,20}$/.test(messageId))
      rows = await this.ds.query(`${SELECT} WHERE m.id = ? AND m.account_id = ?`, [messageId, accountId]);
    else throw notFound();
    if (!rows[0]) throw notFound();
    const events = (await this.ds.query(
      'SELECT status, reason, occurred_at FROM message_events WHERE message_id = ? ORDER BY id',
      [rows[0].id],
    )) as Array<{
      status: MessageStatus;
      reason: string | null;
      occurred_at: Date;
    }>;
    const row = rows[0];
    const history = [
      {
        status: row.units > 0 ? 'ACKNOWLEDGED' : 'REJECTED',
        reason: row.units > 0 ? null : row.reason,
        occurred_at: row.created_at.toISOString(),
      },
      ...events.map((e) => ({
        status: e.status,
        reason: e.reason,
        occurred_at: e.occurred_at.toISOString(),
      })),
    ];
    return { ...this.present(row), history };
  }

  async byReference(accountId: string, apiReference: string, page: number, perPage: number) {
    if (!/^\d{1,20}$/.test(apiReference)) throw notFound();
    const [req] = (await this.ds.query('SELECT id FROM send_requests WHERE id = ? AND account_id = ?', [
      apiReference,
      accountId,
    ])) as Array<{ id: string }>;
    if (!req) throw notFound();
    const [{ total }] = (await this.ds.query(
      'SELECT COUNT(*) AS total FROM messages WHERE send_request_id = ?',
      [apiReference],
    )) as Array<{ total: string }>;
    const rows = (await this.ds.query(
      `${SELECT} WHERE m.send_request_id = ? ORDER BY m.id LIMIT ? OFFSET ?`,
      [apiReference, perPage, (page - 1) * perPage],
    )) as Row[];
    return {
      api_reference: apiReference,
      page,
      per_page: perPage,
      total: Number(total),
      data: rows.map((r) => this.present(r)),
    };
  }

  private present(r: Row) {
    return {
      message_id: r.channel === 'email' ? String(r.id) : r.uuid,
      channel: r.channel,
      api_reference: String(r.send_request_id),
      recipient: r.recipient,
      status: r.status,
      reason: r.reason,
      units: r.units,
      cost: toNumber(r.cost),
      currency: r.currency,
      user_reference_id: r.user_reference_id,
      created_at: r.created_at.toISOString(),
      sent_at: r.sent_at?.toISOString() ?? null,
      completed_at: r.completed_at?.toISOString() ?? null,
      // Hand-over attempts so far, and why the last failed one did: while a message stays
      // ACKNOWLEDGED and is retried, this is where the cause shows.
      attempts: r.attempts,
      last_error: r.last_error,
    };
  }
}
