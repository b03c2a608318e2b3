import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { NOTIFICATION_DB } from '../../../database/data-sources.js';
import { recipientHash } from '../outbox-recipient.js';
import { backfillRecipientHashes } from '../recipient-hash.store.js';

/** An event owed to one endpoint, as the fan-out writes it. */
export interface NewDelivery {
  deliveryId: string;
  eventId: string;
  webhookId: string;
  accountId: string;
  type: string;
  /** The envelope as POSTed (JSON). */
  envelope: string;
  /** The copy's first attempt is owed by its event's queue job alone (no outbox row); false when not given. */
  pending?: boolean;
  /** The row the event is about (the attempt log's message_id); '0' when not given. */
  subjectId?: string;
  /** Who the envelope names (outboxRecipient), kept as its keyed hash for an erasure; '' when none. */
  recipient?: string;
}

/** A copy whose first attempt its event's queue job still owes (`first_pending`). */
export interface PendingCopy {
  delivery_id: string;
  event_id: string;
  webhook_id: string;
  account_id: string;
  envelope: string;
  subject_id: string;
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
  constructor(
    @InjectDataSource(NOTIFICATION_DB) private readonly notifications: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The events owed, every endpoint's in one statement; a copy logged already stays as it is. */
  async insert(rows: NewDelivery[]): Promise<void> {
    if (rows.length === 0) return;
    // An event's copies name the same recipient: one hash per recipient of the batch.
    const hashes = new Map<string, Buffer>();
    const hashOf = (recipient = '') => {
      if (!hashes.has(recipient)) hashes.set(recipient, recipientHash(this.config.serverSecret, recipient));
      return hashes.get(recipient)!;
    };
    await this.notifications.query(
      `INSERT INTO webhook_deliveries (delivery_id, event_id, webhook_id, account_id, type, envelope, first_pending, subject_id, recipient_hash) VALUES ${rows
        .map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?)')
        .join(',')} ON DUPLICATE KEY UPDATE delivery_id = delivery_id`,
      rows.flatMap((r) => [
        r.deliveryId,
        r.eventId,
        r.webhookId,
        r.accountId,
        r.type,
        r.envelope,
        r.pending ? 1 : 0,
        r.subjectId ?? '0',
        hashOf(r.recipient),
      ]),
    );
  }

  /**
   * Gives logged rows their recipient hash (as the outbox's, CallbackStore.hashRecipients): those
   * without one (logged before the column existed), or, with `all`, every row (after SERVER_SECRET
   * changed). Returns how many rows were given one.
   */
  async hashRecipients(all: boolean): Promise<number> {
    return backfillRecipientHashes(
      this.notifications,
      'webhook_deliveries',
      (r) => recipientHash(this.config.serverSecret, r),
      all,
    );
  }

  /** The sender has taken these copies (held over on the outbox, or done with unattempted). */
  async taken(deliveryIds: string[]): Promise<void> {
    if (deliveryIds.length === 0) return;
    await this.notifications.query(
      'UPDATE webhook_deliveries SET first_pending = 0 WHERE delivery_id IN (?) AND first_pending = 1',
      [deliveryIds],
    );
  }

  /** The highest id so far (0 when none). */
  async lastId(): Promise<string> {
    const [row] = (await this.notifications.query(
      'SELECT COALESCE(MAX(id), 0) AS id FROM webhook_deliveries',
    )) as Array<{ id: string | number }>;
    return String(row!.id);
  }

  /** The id of the `rows`-th row after `afterId`, at most `uptoId` (`uptoId` when fewer are left). */
  async batchEnd(afterId: string, uptoId: string, rows: number): Promise<string> {
    const [row] = (await this.notifications.query(
      `SELECT COUNT(*) AS n, MAX(id) AS id FROM (
         SELECT id FROM webhook_deliveries WHERE id > ? AND id <= ? ORDER BY id LIMIT ?) batch`,
      [afterId, uptoId, rows],
    )) as Array<{ n: string | number; id: string | number | null }>;
    return Number(row!.n) < rows ? uptoId : String(row!.id);
  }

  /** The copies in (`afterId`, `uptoId`] whose first attempt is still owed by their event's job, in id order. */
  async pendingIn(afterId: string, uptoId: string): Promise<PendingCopy[]> {
    return (await this.notifications.query(
      `SELECT delivery_id, event_id, webhook_id, account_id, envelope, subject_id FROM webhook_deliveries
        WHERE id > ? AND id <= ? AND first_pending = 1 ORDER BY id`,
      [afterId, uptoId],
    )) as PendingCopy[];
  }

  /** The id just before the first row logged in the last `hours` (the last id when none is). */
  async idBefore(hours: number): Promise<string> {
    const [row] = (await this.notifications.query(
      `SELECT id FROM webhook_deliveries WHERE created_at >= CURRENT_TIMESTAMP(3) - INTERVAL ? HOUR
        ORDER BY created_at LIMIT 1`,
      [hours],
    )) as Array<{ id: string | number }>;
    return row ? String(BigInt(row.id) - 1n) : this.lastId();
  }

  /**
   * When the rows after `afterId` start before `since`: the last id logged before it; null when
   * they start later, or none is there.
   */
  async skipTo(afterId: string, since: Date): Promise<string | null> {
    const [first] = (await this.notifications.query(
      'SELECT created_at FROM webhook_deliveries WHERE id > ? ORDER BY id LIMIT 1',
      [afterId],
    )) as Array<{ created_at: Date }>;
    if (!first || new Date(first.created_at).getTime() >= since.getTime()) return null;
    const [last] = (await this.notifications.query(
      'SELECT id FROM webhook_deliveries WHERE created_at < ? ORDER BY created_at DESC LIMIT 1',
      [since],
    )) as Array<{ id: string | number }>;
    return last && BigInt(last.id) > BigInt(afterId) ? String(last.id) : null;
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
      `UPDATE webhook_deliveries SET attempts = attempts + 1, first_pending = 0, last_status = ?, last_error = ?,
          last_attempt_at = CURRENT_TIMESTAMP(3), next_attempt_at = ?,
          delivered_at = IF(?, CURRENT_TIMESTAMP(3), delivered_at)
        WHERE webhook_id = ? AND event_id = ?`,
      [o.httpStatus, o.error?.slice(0, 255) ?? null, o.nextAttemptAt, o.delivered, webhookId, eventId],
    );
  }

  /** The event is not to be attempted (the endpoint is disabled): no attempt is due any more. */
  async notDue(eventId: string, webhookId: string): Promise<void> {
    await this.notifications.query(
      'UPDATE webhook_deliveries SET next_attempt_at = NULL, first_pending = 0 WHERE webhook_id = ? AND event_id = ?',
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
