import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The recovery sweep looks for messages still ACKNOWLEDGED (request by request) and for
 * messages SENT long ago without a receipt. Both sets are small beside the table, and this
 * index reaches them without a scan: ACKNOWLEDGED rows have no sent_at, so they are ordered
 * by request; SENT rows are ordered by the time they were handed over.
 */
export class IndexMessagesByStatus1764000612000 implements MigrationInterface {
  name = 'IndexMessagesByStatus1764000612000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      'ALTER TABLE messages ADD KEY ix_messages_status_sent_request (status, sent_at, send_request_id)',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE messages DROP KEY ix_messages_status_sent_request');
  }
}
