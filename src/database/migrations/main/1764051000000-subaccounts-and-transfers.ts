import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sub-accounts: an account may belong to a parent (one level only, enforced by the service)
 * and carry a display name the parent gives it,
 * whose prices it uses until it has its own (`price_inherited` on each channel row, cleared by
 * the first price set on the sub-account). Credit moves between a parent and its sub-accounts
 * as transfers: one row per transfer and two ledger rows (kind `transfer`) naming it.
 */
export class SubaccountsAndTransfers1764051000000 implements MigrationInterface {
  name = 'SubaccountsAndTransfers1764051000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE accounts
      ADD COLUMN parent_id BIGINT UNSIGNED NULL AFTER id,
      ADD COLUMN name VARCHAR(100) NULL AFTER username,
      ADD KEY ix_accounts_parent (parent_id, id),
      ADD CONSTRAINT fk_accounts_parent FOREIGN KEY (parent_id) REFERENCES accounts (id)`);
    await q.query(
      'ALTER TABLE account_channels ADD COLUMN price_inherited TINYINT(1) NOT NULL DEFAULT 0 AFTER cost_per_unit',
    );
    await q.query(`CREATE TABLE transfers (
      id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
      parent_id BIGINT UNSIGNED NOT NULL,
      subaccount_id BIGINT UNSIGNED NOT NULL,
      channel ENUM('sms','email','chat') NOT NULL,
      amount DECIMAL(20,6) NOT NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      KEY ix_transfers_parent (parent_id, id),
      KEY ix_transfers_subaccount (subaccount_id, id),
      CONSTRAINT fk_transfers_parent FOREIGN KEY (parent_id) REFERENCES accounts (id),
      CONSTRAINT fk_transfers_subaccount FOREIGN KEY (subaccount_id) REFERENCES accounts (id)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await q.query(`ALTER TABLE ledger_entries
      MODIFY COLUMN kind ENUM('topup','charge','refund','transfer') NOT NULL,
      ADD COLUMN transfer_id BIGINT UNSIGNED NULL AFTER message_id,
      ADD KEY ix_ledger_transfer (transfer_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query("DELETE FROM ledger_entries WHERE kind = 'transfer'");
    await q.query(`ALTER TABLE ledger_entries
      DROP KEY ix_ledger_transfer,
      DROP COLUMN transfer_id,
      MODIFY COLUMN kind ENUM('topup','charge','refund') NOT NULL`);
    await q.query('DROP TABLE transfers');
    await q.query('ALTER TABLE account_channels DROP COLUMN price_inherited');
    await q.query(`ALTER TABLE accounts
      DROP FOREIGN KEY fk_accounts_parent,
      DROP KEY ix_accounts_parent,
      DROP COLUMN name,
      DROP COLUMN parent_id`);
  }
}
