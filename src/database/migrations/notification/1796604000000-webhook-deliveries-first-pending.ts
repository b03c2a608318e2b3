import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An event's copies are queued straight from the delivery log, without an outbox row:
 * first_pending is 1 while a copy's first attempt is owed by its event's queue job alone (the
 * recovery sweep queues that job again when it was lost), 0 once the sender has taken the copy
 * (attempted, held over on the outbox, or done with) or when it never rode such a job.
 * subject_id is the row the event is about (the attempt log's message_id), for that job.
 */
export class WebhookDeliveriesFirstPending1796604000000 implements MigrationInterface {
  name = 'WebhookDeliveriesFirstPending1796604000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries
      ADD COLUMN first_pending TINYINT UNSIGNED NOT NULL DEFAULT 0,
      ADD COLUMN subject_id BIGINT UNSIGNED NOT NULL DEFAULT 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE webhook_deliveries DROP COLUMN first_pending, DROP COLUMN subject_id');
  }
}
