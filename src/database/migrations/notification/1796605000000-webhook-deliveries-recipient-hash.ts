import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who a logged webhook event is about, as the callback outbox's keyed hash (outbox-recipient.ts),
 * indexed: an erasure finds a recipient's envelopes by it instead of reading the log. Rows logged
 * before it have none: an erasure still finds them by their text, and `db hash-outbox` gives them
 * one (the key, SERVER_SECRET, is not known to a migration).
 */
export class WebhookDeliveriesRecipientHash1796605000000 implements MigrationInterface {
  name = 'WebhookDeliveriesRecipientHash1796605000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries
      ADD COLUMN recipient_hash BINARY(32) NULL,
      ADD KEY ix_webhook_deliveries_recipient (recipient_hash)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      'ALTER TABLE webhook_deliveries DROP KEY ix_webhook_deliveries_recipient, DROP COLUMN recipient_hash',
    );
  }
}
