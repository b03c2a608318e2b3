import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { NOTIFICATION_DB } from '../../../database/data-sources.js';
import { receiptKey } from './receipt-matcher.js';
import { idKeys } from '../smpp/receipt-ids.js';
import type { DeliveryReport } from '../transports/transport.js';

/** A report as it arrived, on the transport it arrived by. */
export interface ArrivedReport {
  transport: string;
  report: DeliveryReport;
}

/** A stored report not yet applied, as the matcher takes it again. */
export interface PendingReport {
  provider_message_id: string;
  connector: string | null;
  status: DeliveryReport['status'];
  reason: string | null;
}

/** A stored report now applied to its message. */
export interface AppliedReport {
  providerMessageId: string;
  connector: string | null;
  messageId: string;
}

/** How long a table found unpartitioned is taken as such before it is asked again (`db partition` may run meanwhile). */
const DAY_COLUMN_RECHECK_MS = 60_000;

/** Every statement on delivery_reports (notification database) but retention's. */
@Injectable()
export class DeliveryReportStore {
  /** Whether the table has its partition column `day_id`, and until when that answer holds. */
  private dayColumn: { present: boolean; until: number } | undefined;

  constructor(@InjectDataSource(NOTIFICATION_DB) private readonly notifications: DataSource) {}

  /**
   * A partitioned table is cut on `day_id` (database/partitions/day-partitions.ts): the INSERT
   * leaves it to its DEFAULT, a match sets it to the message id. Once present it stays.
   */
  private async hasDayColumn(): Promise<boolean> {
    if (this.dayColumn && (this.dayColumn.present || Date.now() < this.dayColumn.until))
      return this.dayColumn.present;
    const rows = (await this.notifications.query(
      `SELECT 1 FROM information_schema.COLUMNS
        WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'delivery_reports' AND COLUMN_NAME = 'day_id'`,
    )) as unknown[];
    this.dayColumn = { present: rows.length > 0, until: Date.now() + DAY_COLUMN_RECHECK_MS };
    return this.dayColumn.present;
  }

  /**
   * One multi-row INSERT for the batch, with the provider id's hex and decimal keys beside it; the
   * reports in `applied` (by receiptKey) are stored applied, to the message given there.
   */
  async insert(batch: ArrivedReport[], applied: Map<string, AppliedReport> = new Map()): Promise<void> {
    await this.notifications.query(
      `INSERT INTO delivery_reports (transport, connector, provider_message_id, id_hex, id_dec, status, reason, occurred_at, message_id, applied_at)
        VALUES ${batch.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, IF(?, CURRENT_TIMESTAMP(3), NULL))').join(',')}`,
      batch.flatMap((q) => {
        const keys = idKeys(q.report.providerMessageId);
        return [
          q.transport,
          q.report.connector || null,
          q.report.providerMessageId,
          keys.hex,
          keys.dec,
          q.report.status,
          q.report.reason ?? null,
          q.report.occurredAt,
          applied.get(receiptKey(q.report))?.messageId ?? null,
          applied.has(receiptKey(q.report)),
        ];
      }),
    );
  }

  /**
   * The reports neither applied nor expired whose provider id is one of `providerIds`, or whose
   * hex or decimal key is one of `byHex` / `byDec` (an empty list looks nothing up), oldest first.
   */
  async pending(providerIds: string[], byHex: string[], byDec: string[]): Promise<PendingReport[]> {
    // '' is never a key (digits or NULL): it stands for an empty list, which IN () refuses.
    const some = (keys: string[]) => (keys.length ? keys : ['']);
    return (await this.notifications.query(
      `SELECT provider_message_id, connector, status, reason FROM delivery_reports
        WHERE (provider_message_id IN (?) OR id_hex IN (?) OR id_dec IN (?)) AND applied_at IS NULL AND expired_at IS NULL ORDER BY id`,
      [providerIds, some(byHex), some(byDec)],
    )) as PendingReport[];
  }

  /**
   * Marks the stored rows of these receipts applied: the rows with the same provider id from the
   * same connector (or, for a receipt without one, from none), never another connector's.
   */
  async markApplied(receipts: AppliedReport[]): Promise<void> {
    // MariaDB assigns left to right: day_id takes the message id just set, and the row moves
    // to its message's day partition, where it is dropped with it.
    const day = (await this.hasDayColumn()) ? ', day_id = message_id' : '';
    // One statement per connector (a batch usually comes from one): the connector is then a
    // plain condition, and the message id a simple CASE on the provider id, read once per row.
    const byConnector = new Map<string | null, AppliedReport[]>();
    for (const r of receipts) {
      const c = r.connector ?? null;
      const list = byConnector.get(c);
      if (list) list.push(r);
      else byConnector.set(c, [r]);
    }
    for (const [connector, list] of byConnector) {
      const params: unknown[] = [];
      const cases = list
        .map((r) => (params.push(r.providerMessageId, r.messageId), 'WHEN ? THEN ?'))
        .join(' ');
      await this.notifications.query(
        `UPDATE delivery_reports SET applied_at = CURRENT_TIMESTAMP(3), message_id = CASE provider_message_id ${cases} END${day}
          WHERE provider_message_id IN (?) AND connector <=> ? AND applied_at IS NULL`,
        [...params, [...new Set(list.map((r) => r.providerMessageId))], connector],
      );
    }
  }

  /** Provider ids of up to `limit` reports unapplied for longer than `minAgeMs`, the newest first. */
  async stranded(minAgeMs: number, limit: number): Promise<string[]> {
    const rows = (await this.notifications.query(
      `SELECT provider_message_id FROM delivery_reports
        WHERE applied_at IS NULL AND expired_at IS NULL AND received_at < CURRENT_TIMESTAMP(3) - INTERVAL ? MICROSECOND
        ORDER BY received_at DESC LIMIT ?`,
      [minAgeMs * 1000, limit],
    )) as Array<{ provider_message_id: string }>;
    return rows.map((r) => r.provider_message_id);
  }

  /** Marks expired up to 5000 reports unapplied for longer than `ttlMs`; returns how many. */
  async expireUnapplied(ttlMs: number): Promise<number> {
    const res = (await this.notifications.query(
      `UPDATE delivery_reports SET expired_at = CURRENT_TIMESTAMP(3)
        WHERE applied_at IS NULL AND expired_at IS NULL AND received_at < CURRENT_TIMESTAMP(3) - INTERVAL ? MICROSECOND LIMIT 5000`,
      [ttlMs * 1000],
    )) as { affectedRows?: number };
    return res.affectedRows ?? 0;
  }
}
