import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { NOTIFICATION_DB } from '../../../database/data-sources.js';

/** An event owed to one endpoint, as the fan-out writes it. */
export interface NewDelivery {
  deliveryId: string;
  eventId: string;
  webhookId: string;
  accountId: string;
  type: string;
  /** The envelope as POSTed (JSON). */
  envelope: string;
}

export interface DeliveryRow {
  id: string;
  delivery_id: string;
  event_id: string;
  webhook_id: string;
  type: string;
  envelope: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: Date | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  created_at: Date;
}

export interface AttemptOutcome {
  httpStatus: number | null;
  error: string | null;
  delivered: boolean;
  /** When the next attempt is due; null when none will follow. */
  nextAttemptAt: Date | null;
}

/** Rows a delivery log keeps, in days. */
export const DELIVERIES_KEPT_DAYS = 7;

/** Every statement on webhook_deliveries (notification database). */
@Injectable()
export class WebhookDeliveryStore {
  constructor(@InjectDataSource(NOTIFICATION_DB) private readonly notifications: DataSource) {}

  /** The events owed, every endpoint's in one statement; a copy logged already stays as it is. */
  async insert(rows: NewDelivery[]): Promise<void> {
    if (rows.length === 0) return;
    await this.notifications.query(
      `INSERT INTO webhook_deliveries (delivery_id, event_id, webhook_id, account_id, type, envelope) VALUES ${rows
        .map(() => '(?, ?, ?, ?, ?, ?)')
        .join(',')} ON DUPLICATE KEY UPDATE delivery_id = delivery_id`,
      rows.flatMap((r) => [r.deliveryId, r.eventId, r.webhookId, r.accountId, r.type, r.envelope]),
    );
  }

  /** Which of these copies are logged. */
  async logged(deliveryIds: string[]): Promise<Set<string>> {
    if (deliveryIds.length === 0) return new Set();
    const rows = (await this.notifications.query(
      'SELECT delivery_id FROM webhook_deliveries WHERE delivery_id IN (?)',
      [deliveryIds],
    )) as Array<{ delivery_id: string }>;
    return new Set(rows.map((r) => r.delivery_id));
  }

  /** One attempt's outcome on its event's row (replays count on the row they replay). */
  async attempted(eventId: string, webhookId: string, o: AttemptOutcome): Promise<void> {
    await this.notifications.query(
      `UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = ?, last_error = ?,
          last_attempt_at = CURRENT_TIMESTAMP(3), next_attempt_at = ?,
          delivered_at = IF(?, CURRENT_TIMESTAMP(3), delivered_at)
        WHERE webhook_id = ? AND event_id = ?`,
      [o.httpStatus, o.error?.slice(0, 255) ?? null, o.nextAttemptAt, o.delivered, webhookId, eventId],
    );
  }

  /** The event is not to be attempted (the endpoint is disabled): no attempt is due any more. */
  async notDue(eventId: string, webhookId: string): Promise<void> {
    await this.notifications.query(
      'UPDATE webhook_deliveries SET next_attempt_at = NULL WHERE webhook_id = ? AND event_id = ?',
      [webhookId, eventId],
    );
  }

  /** The endpoint's events of the last DELIVERIES_KEPT_DAYS, newest first, after the row `before` when given. */
  async page(webhookId: string, before: string | null, limit: number): Promise<DeliveryRow[]> {
    return (await this.notifications.query(
      `SELECT id, delivery_id, event_id, webhook_id, type, envelope, attempts, last_status, last_error,
              last_attempt_at, next_attempt_at, delivered_at, created_at
         FROM webhook_deliveries
        WHERE webhook_id = ? AND created_at >= CURRENT_TIMESTAMP(3) - INTERVAL ? DAY${before === null ? '' : ' AND id < ?'}
        ORDER BY id DESC LIMIT ?`,
      before === null
        ? [webhookId, DELIVERIES_KEPT_DAYS, limit]
        : [webhookId, DELIVERIES_KEPT_DAYS, before, limit],
    )) as DeliveryRow[];
  }

  /** One event of the endpoint, within the kept days. */
  async get(webhookId: string, eventId: string): Promise<DeliveryRow | undefined> {
    const rows = (await this.notifications.query(
      `SELECT id, delivery_id, event_id, webhook_id, type, envelope, attempts, last_status, last_error,
              last_attempt_at, next_attempt_at, delivered_at, created_at
         FROM webhook_deliveries
        WHERE webhook_id = ? AND event_id = ? AND created_at >= CURRENT_TIMESTAMP(3) - INTERVAL ? DAY
        ORDER BY id LIMIT 1`,
      [webhookId, eventId, DELIVERIES_KEPT_DAYS],
    )) as DeliveryRow[];
    return rows[0];
  }

  /** Up to 1000 rows past the kept days; returns how many went. */
  async prune(): Promise<number> {
    const res = (await this.notifications.query(
      'DELETE FROM webhook_deliveries WHERE created_at < CURRENT_TIMESTAMP(3) - INTERVAL ? DAY LIMIT 1000',
      [DELIVERIES_KEPT_DAYS],
    )) as { affectedRows?: number };
    return res.affectedRows ?? 0;
  }

  /** Every row of an endpoint that was deleted. */
  async removeEndpoint(webhookId: string): Promise<void> {
    await this.notifications.query('DELETE FROM webhook_deliveries WHERE webhook_id = ?', [webhookId]);
  }
}
