import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An account's event subscriptions: where to POST which event types, signed with the endpoint's
 * own secret. failing_since is the first failed attempt since the last 2xx: an endpoint failing
 * for WEBHOOK_DISABLE_AFTER_HOURS is disabled. Per side (test_mode) as the rest of an account's data.
 */
export class CreateWebhookEndpoints1796597632234 implements MigrationInterface {
  name = 'CreateWebhookEndpoints1796597632234';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE webhook_endpoints (
      id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
      uuid CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
      account_id BIGINT UNSIGNED NOT NULL,
      test_mode TINYINT(1) NOT NULL DEFAULT 0,
      url VARCHAR(2048) NOT NULL,
      events VARCHAR(1024) CHARACTER SET ascii NOT NULL,
      description VARCHAR(255) NULL,
      status ENUM('enabled','disabled') NOT NULL DEFAULT 'enabled',
      disabled_reason VARCHAR(255) NULL,
      secret VARCHAR(128) CHARACTER SET ascii NOT NULL,
      failing_since DATETIME(3) NULL,
      last_success_at DATETIME(3) NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      UNIQUE KEY ux_webhook_endpoints_uuid (uuid),
      KEY ix_webhook_endpoints_account (account_id, test_mode)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE webhook_endpoints');
  }
}
