import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The account's default for SMS smart encoding when a send does not say (off, as before). */
export class AccountSmartEncoding1764019100000 implements MigrationInterface {
  name = 'AccountSmartEncoding1764019100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE accounts ADD COLUMN smart_encoding TINYINT(1) NOT NULL DEFAULT 0');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE accounts DROP COLUMN smart_encoding');
  }
}
