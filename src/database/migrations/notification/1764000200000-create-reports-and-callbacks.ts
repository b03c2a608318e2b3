import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Delivery reports as received, and every callback attempt. */
export class CreateReportsAndCallbacks1764000200000 implements MigrationInterface {
  name = 'CreateReportsAndCallbacks1764000200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE delivery_reports (
      id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
      transport VARCHAR(16) NOT NULL,
      provider_message_id VARCHAR(128) NOT NULL,
      status VARCHAR(16) NOT NULL,
      reason VARCHAR(64) NULL,
      occurred_at DATETIME(3) NOT NULL,
      received_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      applied_at DATETIME(3) NULL,
      message_id BIGINT UNSIGNED NULL,
      KEY ix_delivery_reports_pending (provider_message_id, applied_at)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await q.query(`CREATE TABLE callback_attempts (
      id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
      event_id CHAR(36) CHARACTER SET ascii NOT NULL,
      message_id BIGINT UNSIGNED NOT NULL,
      account_id BIGINT UNSIGNED NOT NULL,
      url VARCHAR(2048) NOT NULL,
      attempt SMALLINT UNSIGNED NOT NULL,
      outcome ENUM('delivered','http_error','network_error','refused') NOT NULL,
      http_status SMALLINT UNSIGNED NULL,
      error VARCHAR(255) NULL,
      duration_ms INT UNSIGNED NOT NULL,
      attempted_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      KEY ix_callback_attempts_event (event_id),
      KEY ix_callback_attempts_message (message_id)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE callback_attempts');
    await q.query('DROP TABLE delivery_reports');
  }
}
