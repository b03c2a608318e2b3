import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SMPP credentials: how a customer's ESME binds to the SMPP server. Each belongs to an account
 * (or sub-account) and sends under an API key of its own (api_key_id, created with it; its
 * secret is never shown, so it serves no HTTP request), so the send pipeline sees the same
 * key, account and mode as for HTTP. Only an argon2 hash of the password is kept.
 *
 * messages.smpp_credential_id / smpp_registered_delivery mark a message submitted over SMPP:
 * the credential whose binds receive its receipts, and what the submit asked for
 * (registered_delivery & 0x03). NULL for every other message.
 */
export class CreateSmppCredentials1764060000000 implements MigrationInterface {
  name = 'CreateSmppCredentials1764060000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE smpp_credentials (
      id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
      account_id BIGINT UNSIGNED NOT NULL,
      api_key_id BIGINT UNSIGNED NOT NULL,
      system_id VARCHAR(15) NOT NULL,
      password_hash VARCHAR(255) NOT NULL,
      mode ENUM('live','test') NOT NULL DEFAULT 'live',
      allowed_ips JSON NULL,
      max_binds INT UNSIGNED NOT NULL DEFAULT 4,
      tps INT UNSIGNED NOT NULL DEFAULT 100,
      revoked_at DATETIME(3) NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
      UNIQUE KEY uq_smpp_credentials_system_id (system_id),
      KEY ix_smpp_credentials_account (account_id),
      CONSTRAINT fk_smpp_credentials_account FOREIGN KEY (account_id) REFERENCES accounts (id),
      CONSTRAINT fk_smpp_credentials_key FOREIGN KEY (api_key_id) REFERENCES api_keys (id)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
    await q.query(`ALTER TABLE messages
      ADD COLUMN smpp_credential_id INT UNSIGNED NULL,
      ADD COLUMN smpp_registered_delivery TINYINT UNSIGNED NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      'ALTER TABLE messages DROP COLUMN smpp_registered_delivery, DROP COLUMN smpp_credential_id',
    );
    await q.query('DROP TABLE smpp_credentials');
  }
}
