import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The account's status-callback URL: where the state changes of its messages, of every channel,
 * are POSTed when the send request names no callback_url of its own.
 */
export class AccountStatusCallbackUrl1764040000000 implements MigrationInterface {
  name = 'AccountStatusCallbackUrl1764040000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE accounts ADD COLUMN status_callback_url VARCHAR(2048) NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE accounts DROP COLUMN status_callback_url');
  }
}
