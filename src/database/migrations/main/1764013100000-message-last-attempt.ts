import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the last hand-over attempt of a message ran into, so the message lookup can say why a
 * message is still ACKNOWLEDGED while it is retried (`attempts` already counts the tries).
 */
export class MessageLastAttempt1764013100000 implements MigrationInterface {
  name = 'MessageLastAttempt1764013100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE messages
      ADD COLUMN last_error VARCHAR(64) NULL AFTER attempts,
      ADD COLUMN last_attempt_at DATETIME(3) NULL AFTER last_error`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE messages DROP COLUMN last_attempt_at, DROP COLUMN last_error');
  }
}
