import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One-time code verifications. The code itself is never stored: code_hash is its keyed digest
 * (SERVER_SECRET), compared in constant time. masked_body is the text the code's message keeps
 * once handed over (the code written as ******); masked_at says it has been put in its place.
 * The (account, side, recipient, created_at) key serves the replacement of a pending
 * verification and the per-number count; (account, side, country, id) the conversion of a
 * country's latest verifications that the pumping guard reads.
 */
export class CreateVerifications1796597651138 implements MigrationInterface {
  name = 'CreateVerifications1796597651138';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE verifications (
      seq BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
      id CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
      account_id BIGINT UNSIGNED NOT NULL,
      test_mode TINYINT(1) NOT NULL DEFAULT 0,
      channel ENUM('sms','email','chat') NOT NULL,
      recipient VARCHAR(320) NOT NULL,
      country CHAR(2) CHARACTER SET ascii NOT NULL,
      code_hash BINARY(32) NOT NULL,
      status ENUM('pending','approved','max_attempts_reached','expired','canceled') NOT NULL DEFAULT 'pending',
      attempts TINYINT UNSIGNED NOT NULL DEFAULT 0,
      message_id BIGINT UNSIGNED NULL,
      public_message_id VARCHAR(40) NULL,
      masked_body MEDIUMTEXT NULL,
      masked_at DATETIME(3) NULL,
      expires_at DATETIME(3) NOT NULL,
      created_at DATETIME(3) NOT NULL,
      closed_at DATETIME(3) NULL,
      UNIQUE KEY ux_verifications_id (id),
      KEY ix_verifications_recipient (account_id, test_mode, recipient, created_at),
      KEY ix_verifications_country (account_id, test_mode, country, seq),
      KEY ix_verifications_message (message_id),
      KEY ix_verifications_open (status, expires_at)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE verifications');
  }
}
