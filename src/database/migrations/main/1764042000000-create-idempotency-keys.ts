import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The Idempotency-Key of a creating POST and its first answer, per account and mode (a test
 * key's keys are apart from a live key's), kept 24 h. A row with no status is a request still
 * being processed (until locked_until) or one whose first attempt failed and may be taken over.
 * send_request_id is written in the send's own transaction, so a send is never made twice
 * under one key even when its answer was never stored (a crash between the two).
 */
export class CreateIdempotencyKeys1764042000000 implements MigrationInterface {
  name = 'CreateIdempotencyKeys1764042000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE idempotency_keys (
      id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
      account_id BIGINT UNSIGNED NOT NULL,
      test_mode TINYINT(1) NOT NULL,
      idempotency_key VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
      fingerprint BINARY(32) NOT NULL,
      claim_token BINARY(16) NOT NULL,
      locked_until DATETIME(3) NULL,
      send_request_id BIGINT UNSIGNED NULL,
      status SMALLINT UNSIGNED NULL,
      content_type VARCHAR(100) NULL,
      body MEDIUMBLOB NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      expires_at DATETIME(3) NOT NULL,
      PRIMARY KEY (id),
      UNIQUE KEY uq_idempotency_keys_key (account_id, test_mode, idempotency_key),
      KEY ix_idempotency_keys_expires (expires_at)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE idempotency_keys');
  }
}
