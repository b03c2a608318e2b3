import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Where an account may send SMS and chat: every country (mode all, the default, also when the
 * account has no row), only the listed ones (allow) or all but them (block); countries are ISO
 * 3166 alpha-2 names, comma-separated. allow_premium lets it send to premium-rate numbers.
 */
export class CreateAccountCountries1796597653875 implements MigrationInterface {
  name = 'CreateAccountCountries1796597653875';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE account_countries (
      account_id BIGINT UNSIGNED NOT NULL PRIMARY KEY,
      mode ENUM('all','allow','block') NOT NULL DEFAULT 'all',
      countries VARCHAR(1024) NOT NULL DEFAULT '',
      allow_premium TINYINT(1) NOT NULL DEFAULT 0,
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
      CONSTRAINT fk_account_countries_account FOREIGN KEY (account_id) REFERENCES accounts (id)
    ) ENGINE=InnoDB DEFAULT CHARSET=ascii COLLATE=ascii_bin`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE account_countries');
  }
}
