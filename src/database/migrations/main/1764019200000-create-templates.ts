import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Message templates, per account; a name is unique within its account. */
export class CreateTemplates1764019200000 implements MigrationInterface {
  name = 'CreateTemplates1764019200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE templates (
      id CHAR(36) NOT NULL,
      account_id BIGINT UNSIGNED NOT NULL,
      name VARCHAR(100) NOT NULL,
      channel ENUM('sms','email','chat') NOT NULL,
      subject TEXT NULL,
      body MEDIUMTEXT NOT NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      PRIMARY KEY (id),
      UNIQUE KEY uq_templates_account_name (account_id, name),
      CONSTRAINT fk_templates_account FOREIGN KEY (account_id) REFERENCES accounts (id)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE templates');
  }
}
