import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One row per authenticated request. No foreign
 * keys: the keys and accounts live in another database. (api_key_id, created_at) serves
 * `keys logs ID`; (created_at) serves `logs prune`.
 */
export class CreateRequestLogs1764000300000 implements MigrationInterface {
  name = 'CreateRequestLogs1764000300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE request_logs (
      id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
      api_key_id BIGINT UNSIGNED NOT NULL,
      account_id BIGINT UNSIGNED NULL,
      method VARCHAR(10) NOT NULL,
      path VARCHAR(255) NOT NULL,
      status SMALLINT UNSIGNED NOT NULL,
      ip VARCHAR(45) NULL,
      user_agent VARCHAR(255) NULL,
      duration_ms INT UNSIGNED NULL,
      api_reference VARCHAR(20) NULL,
      request_id VARCHAR(128) NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      KEY ix_request_logs_key_created (api_key_id, created_at),
      KEY ix_request_logs_created (created_at)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE request_logs');
  }
}
