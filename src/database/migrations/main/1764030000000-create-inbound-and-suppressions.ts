import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Two-way messaging and opt-out: inbound numbers per account (a keyword shares a short code),
 * inbound messages, the parts of concatenated inbound messages waiting for the rest, each
 * account's inbound webhook and auto-replies, and the suppression list. A part's text is kept
 * as UTF-16 bytes: a UCS-2 part may end in half of a surrogate pair, which UTF-8 cannot hold.
 * The message an inbound one answers (the latest sent to that number) is found through
 * ix_messages_account_recipient_created.
 */
export class CreateInboundAndSuppressions1764030000000 implements MigrationInterface {
  name = 'CreateInboundAndSuppressions1764030000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE inbound_numbers (
      id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
      number VARCHAR(20) CHARACTER SET ascii NOT NULL,
      keyword VARCHAR(32) NOT NULL DEFAULT '',
      account_id BIGINT UNSIGNED NOT NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      UNIQUE KEY uq_inbound_numbers_number_keyword (number, keyword),
      KEY ix_inbound_numbers_account (account_id),
      CONSTRAINT fk_inbound_numbers_account FOREIGN KEY (account_id) REFERENCES accounts (id)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await q.query(`CREATE TABLE inbound_messages (
      id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
      uuid CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
      account_id BIGINT UNSIGNED NOT NULL,
      sender VARCHAR(32) NOT NULL,
      recipient VARCHAR(32) NOT NULL,
      text MEDIUMTEXT NOT NULL,
      keyword VARCHAR(32) NULL,
      in_reply_to CHAR(36) CHARACTER SET ascii NULL,
      source VARCHAR(16) NOT NULL,
      reply_text TEXT NULL,
      reply_state ENUM('none','pending','done') NOT NULL DEFAULT 'none',
      received_at DATETIME(3) NOT NULL,
      UNIQUE KEY uq_inbound_messages_uuid (uuid),
      KEY ix_inbound_messages_account (account_id, id),
      KEY ix_inbound_messages_account_to (account_id, recipient, id),
      KEY ix_inbound_messages_reply (reply_state, received_at)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await q.query(`CREATE TABLE inbound_part_groups (
      sender VARCHAR(32) NOT NULL,
      recipient VARCHAR(32) NOT NULL,
      ref INT UNSIGNED NOT NULL,
      total TINYINT UNSIGNED NOT NULL,
      first_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      PRIMARY KEY (sender, recipient, ref, total),
      KEY ix_inbound_part_groups_first (first_at)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await q.query(`CREATE TABLE inbound_parts (
      sender VARCHAR(32) NOT NULL,
      recipient VARCHAR(32) NOT NULL,
      ref INT UNSIGNED NOT NULL,
      total TINYINT UNSIGNED NOT NULL,
      seq TINYINT UNSIGNED NOT NULL,
      text_utf16 BLOB NOT NULL,
      PRIMARY KEY (sender, recipient, ref, total, seq)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await q.query(`CREATE TABLE account_inbound_settings (
      account_id BIGINT UNSIGNED NOT NULL PRIMARY KEY,
      inbound_url VARCHAR(2048) NULL,
      reply_on_stop VARCHAR(1600) NULL,
      reply_on_start VARCHAR(1600) NULL,
      reply_on_help VARCHAR(1600) NULL,
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
      CONSTRAINT fk_account_inbound_settings_account FOREIGN KEY (account_id) REFERENCES accounts (id)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await q.query(`CREATE TABLE suppressions (
      account_id BIGINT UNSIGNED NOT NULL,
      channel ENUM('sms','email','chat') NOT NULL,
      recipient VARCHAR(320) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      reason VARCHAR(32) NOT NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      PRIMARY KEY (account_id, channel, recipient)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of [
      'suppressions',
      'account_inbound_settings',
      'inbound_parts',
      'inbound_part_groups',
      'inbound_messages',
      'inbound_numbers',
    ])
      await q.query(`DROP TABLE ${t}`);
  }
}
