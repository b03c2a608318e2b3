import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Daily spend limits, per key and per account, in the account's currency. `daily_spend` holds
 * what each account and each key has been charged on each UTC day (net of refunds), one row per
 * owner and day: the send transaction adds to it under the row's lock, so concurrent sends
 * cannot cross a limit, exactly as the conditional debit keeps the balance from going negative.
 */
export class DailySpendLimits1764021200000 implements MigrationInterface {
  name = 'DailySpendLimits1764021200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE api_keys ADD COLUMN daily_limit DECIMAL(20,6) NULL AFTER rate_window_seconds');
    await q.query('ALTER TABLE accounts ADD COLUMN daily_limit DECIMAL(20,6) NULL AFTER currency');
    await q.query(`CREATE TABLE daily_spend (
      scope ENUM('account','key') NOT NULL,
      owner_id BIGINT UNSIGNED NOT NULL,
      day DATE NOT NULL,
      spent DECIMAL(20,6) NOT NULL DEFAULT 0,
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
      PRIMARY KEY (scope, owner_id, day)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE daily_spend');
    await q.query('ALTER TABLE accounts DROP COLUMN daily_limit');
    await q.query('ALTER TABLE api_keys DROP COLUMN daily_limit');
  }
}
