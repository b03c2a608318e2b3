import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each account's pumping-guard settings: monitor mode (would-be blocks are logged and counted,
 * nothing is refused) and the safe list of numbers never blocked (a JSON array of digits). An
 * account without a row has the defaults: guard on, no safe number. Blocks and hourly counts
 * are short-lived and live in Redis.
 */
export class CreatePumpingSettings1796597651159 implements MigrationInterface {
  name = 'CreatePumpingSettings1796597651159';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE pumping_settings (
      account_id BIGINT UNSIGNED NOT NULL PRIMARY KEY,
      monitor TINYINT(1) NOT NULL DEFAULT 0,
      safe_list TEXT NOT NULL,
      updated_at DATETIME(3) NOT NULL
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE pumping_settings');
  }
}
