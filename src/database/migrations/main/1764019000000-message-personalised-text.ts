import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A personalised send gives each recipient its own text: the message row keeps what was
 * rendered for it. NULL (every message of an ordinary send) means the request's text.
 */
export class MessagePersonalisedText1764019000000 implements MigrationInterface {
  name = 'MessagePersonalisedText1764019000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE messages
      ADD COLUMN body MEDIUMTEXT NULL,
      ADD COLUMN subject TEXT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE messages DROP COLUMN subject, DROP COLUMN body');
  }
}
