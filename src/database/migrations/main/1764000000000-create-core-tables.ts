import type { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateCoreTables1764000000000 implements MigrationInterface {
  name = 'CreateCoreTables1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE id_nodes (
      id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
      host VARCHAR(255) NOT NULL,
      pid INT UNSIGNED NOT NULL,
      started_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);

    await q.query(`CREATE TABLE accounts (
      id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
      client_id CHAR(36) NOT NULL,
      username VARCHAR(64) NOT NULL,
      password_hash VARCHAR(255) NOT NULL,
      status ENUM('active','suspended') NOT NULL DEFAULT 'active',
      currency CHAR(3) NOT NULL,
      callback_secret VARCHAR(128) NOT NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
      UNIQUE KEY uq_accounts_client_id (client_id),
      UNIQUE KEY uq_accounts_username (username)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);

    await q.query(`CREATE TABLE api_keys (
      id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
      account_id BIGINT UNSIGNED NOT NULL,
      name VARCHAR(100) NOT NULL,
      key_hash BINARY(32) NOT NULL,
      key_prefix VARCHAR(16) NOT NULL,
      allowed_ips JSON NULL,
      expires_at DATETIME(3) NULL,
      rate_limit INT UNSIGNED NULL,
      rate_window_seconds INT UNSIGNED NULL,
      revoked_at DATETIME(3) NULL,
      last_used_at DATETIME(3) NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
      UNIQUE KEY uq_api_keys_hash (key_hash),
      KEY ix_api_keys_account (account_id),
      CONSTRAINT fk_api_keys_account FOREIGN KEY (account_id) REFERENCES accounts (id)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);

    await q.query(`CREATE TABLE account_channels (
      account_id BIGINT UNSIGNED NOT NULL,
      channel ENUM('sms','email','chat') NOT NULL,
      balance DECIMAL(20,6) NOT NULL DEFAULT 0,
      cost_per_unit DECIMAL(20,6) NOT NULL,
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
      PRIMARY KEY (account_id, channel),
      CONSTRAINT fk_account_channels_account FOREIGN KEY (account_id) REFERENCES accounts (id),
      CONSTRAINT ck_account_channels_balance CHECK (balance >= 0),
      CONSTRAINT ck_account_channels_price CHECK (cost_per_unit >= 0)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);

    await q.query(`CREATE TABLE ledger_entries (
      id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
      account_id BIGINT UNSIGNED NOT NULL,
      channel ENUM('sms','email','chat') NOT NULL,
      kind ENUM('topup','charge','refund') NOT NULL,
      amount DECIMAL(20,6) NOT NULL,
      send_request_id BIGINT UNSIGNED NULL,
      message_id BIGINT UNSIGNED NULL,
      note VARCHAR(255) NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      KEY ix_ledger_account_channel (account_id, channel),
      KEY ix_ledger_send_request (send_request_id),
      UNIQUE KEY uq_ledger_refund_once (kind, message_id)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);

    await q.query(`CREATE TABLE send_requests (
      id BIGINT UNSIGNED NOT NULL PRIMARY KEY,
      account_id BIGINT UNSIGNED NOT NULL,
      api_key_id BIGINT UNSIGNED NOT NULL,
      channel ENUM('sms','email','chat') NOT NULL,
      sender VARCHAR(320) NOT NULL,
      subject TEXT NULL,
      body MEDIUMTEXT NOT NULL,
      reply_to VARCHAR(320) NULL,
      source VARCHAR(255) NULL,
      callback_url VARCHAR(2048) NULL,
      user_reference_id VARCHAR(255) NULL,
      request_hash BINARY(32) NOT NULL,
      recipient_count INT UNSIGNED NOT NULL,
      accepted_count INT UNSIGNED NOT NULL,
      units_per_recipient SMALLINT UNSIGNED NOT NULL,
      cost DECIMAL(20,6) NOT NULL,
      currency CHAR(3) NOT NULL,
      enqueued_at DATETIME(3) NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      UNIQUE KEY uq_send_requests_reference (account_id, channel, user_reference_id),
      KEY ix_send_requests_enqueued (enqueued_at)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);

    await q.query(`CREATE TABLE messages (
      id BIGINT UNSIGNED NOT NULL PRIMARY KEY,
      uuid CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
      send_request_id BIGINT UNSIGNED NOT NULL,
      account_id BIGINT UNSIGNED NOT NULL,
      channel ENUM('sms','email','chat') NOT NULL,
      recipient VARCHAR(320) NOT NULL,
      status ENUM('ACKNOWLEDGED','SENT','DELIVERED','UNDELIVERED','EXPIRED','FAILED','REJECTED') NOT NULL,
      reason VARCHAR(64) NULL,
      units SMALLINT UNSIGNED NOT NULL,
      cost DECIMAL(20,6) NOT NULL,
      provider_message_id VARCHAR(128) NULL,
      attempts TINYINT UNSIGNED NOT NULL DEFAULT 0,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      sent_at DATETIME(3) NULL,
      completed_at DATETIME(3) NULL,
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
      UNIQUE KEY uq_messages_uuid (uuid),
      KEY ix_messages_request (send_request_id),
      KEY ix_messages_account_created (account_id, created_at),
      KEY ix_messages_provider (provider_message_id)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of [
      'messages',
      'send_requests',
      'ledger_entries',
      'account_channels',
      'api_keys',
      'accounts',
      'id_nodes',
    ]) {
      await q.query(`DROP TABLE ${t}`);
    }
  }
}
