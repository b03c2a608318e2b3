import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A receipt's id read as a hexadecimal and as a decimal number (both written in decimal), so a
 * receipt that arrived before its message's SENT was recorded is found when it is, whatever form
 * the SMSC wrote it in; and when a receipt that never matched was given up (kept for a bounded time).
 */
export class ReceiptIdKeys1764000610000 implements MigrationInterface {
  name = 'ReceiptIdKeys1764000610000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE delivery_reports
      ADD COLUMN id_hex VARCHAR(40) CHARACTER SET ascii COLLATE ascii_bin NULL,
      ADD COLUMN id_dec VARCHAR(40) CHARACTER SET ascii COLLATE ascii_bin NULL,
      ADD COLUMN expired_at DATETIME(3) NULL,
      ADD KEY ix_delivery_reports_hex (id_hex, applied_at),
      ADD KEY ix_delivery_reports_dec (id_dec, applied_at),
      ADD KEY ix_delivery_reports_unapplied (applied_at, expired_at, received_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE delivery_reports DROP KEY ix_delivery_reports_unapplied, DROP KEY ix_delivery_reports_dec,
      DROP KEY ix_delivery_reports_hex, DROP COLUMN expired_at, DROP COLUMN id_dec, DROP COLUMN id_hex`);
  }
}
