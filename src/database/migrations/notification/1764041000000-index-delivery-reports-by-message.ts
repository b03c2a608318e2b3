import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Message retention removes a message's receipts with it, by message id: without an index each
 * batch would scan the whole table. InnoDB adds a secondary index without blocking writes.
 */
export class IndexDeliveryReportsByMessage1764041000000 implements MigrationInterface {
  name = 'IndexDeliveryReportsByMessage1764041000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE delivery_reports ADD KEY ix_delivery_reports_message (message_id)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE delivery_reports DROP KEY ix_delivery_reports_message');
  }
}
