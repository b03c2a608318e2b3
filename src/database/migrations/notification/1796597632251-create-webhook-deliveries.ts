import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every event owed to a webhook endpoint, kept 7 days: what its attempts came to, and the
 * envelope as sent, so an event an endpoint missed (failing, or disabled) can be replayed.
 * delivery_id names the event's copy for one endpoint (the outbox row and queue job).
 */
export class CreateWebhookDeliveries1796597632251 implements MigrationInterface {
  name = 'CreateWebhookDeliveries1796597632251';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE webhook_deliveries (
      id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
      delivery_id CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
      event_id CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
      webhook_id CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
      account_id BIGINT UNSIGNED NOT NULL,
      type VARCHAR(32) CHARACTER SET ascii NOT NULL,
      envelope MEDIUMTEXT NOT NULL,
      attempts SMALLINT UNSIGNED NOT NULL DEFAULT 0,
      last_status SMALLINT UNSIGNED NULL,
      last_error VARCHAR(255) NULL,
      last_attempt_at DATETIME(3) NULL,
      next_attempt_at DATETIME(3) NULL,
      delivered_at DATETIME(3) NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      UNIQUE KEY ux_webhook_deliveries_delivery (delivery_id),
      KEY ix_webhook_deliveries_endpoint (webhook_id, id),
      KEY ix_webhook_deliveries_event (webhook_id, event_id),
      KEY ix_webhook_deliveries_created (created_at)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE webhook_deliveries');
  }
}
