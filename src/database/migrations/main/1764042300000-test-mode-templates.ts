import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Templates belong to one side of an account, as its messages, inbound messages and
 * suppressions do: a test key reads, changes and sends with the account's test templates only,
 * a live key with its live ones, so a test key can never change the text of a live send. A name
 * is unique within its side. Existing templates are live.
 */
export class TestModeTemplates1764042300000 implements MigrationInterface {
  name = 'TestModeTemplates1764042300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE templates
      ADD COLUMN test_mode TINYINT(1) NOT NULL DEFAULT 0 AFTER account_id,
      DROP INDEX uq_templates_account_name,
      ADD UNIQUE KEY uq_templates_account_name (account_id, test_mode, name)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DELETE FROM templates WHERE test_mode = 1');
    await q.query(`ALTER TABLE templates
      DROP INDEX uq_templates_account_name,
      ADD UNIQUE KEY uq_templates_account_name (account_id, name),
      DROP COLUMN test_mode`);
  }
}
