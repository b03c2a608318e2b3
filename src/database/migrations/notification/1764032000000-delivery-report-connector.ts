import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The SMPP connector a receipt arrived on. Two SMSCs can issue the same message id (many number
 * their messages 1, 2, 3…), so a receipt kept for late matching is matched, and marked applied,
 * only within its own connector. NULL for receipts stored before, and for other transports.
 */
export class DeliveryReportConnector1764032000000 implements MigrationInterface {
  name = 'DeliveryReportConnector1764032000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE delivery_reports ADD COLUMN connector VARCHAR(64) NULL AFTER transport');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE delivery_reports DROP COLUMN connector');
  }
}
