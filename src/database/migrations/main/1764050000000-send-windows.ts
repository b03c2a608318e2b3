import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Send windows (quiet hours).
 *
 * - accounts.send_window: the account's window as JSON `{from, to, days}`, NULL: none;
 *   accounts.time_zone: the IANA zone of its e-mail recipients (and of numbers whose country is
 *   unknown).
 * - messages.send_at: a message's own release time when its window was closed at the request's
 *   (NULL: the request's). While it waits the message is SCHEDULED and its request's due_at is
 *   the earliest release (or validity end) among its waiting messages, so the due scanner
 *   releases each message in turn.
 */
export class SendWindows1764050000000 implements MigrationInterface {
  name = 'SendWindows1764050000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE accounts
      ADD COLUMN send_window VARCHAR(200) NULL,
      ADD COLUMN time_zone VARCHAR(64) NOT NULL DEFAULT 'UTC'`);
    await q.query('ALTER TABLE messages ADD COLUMN send_at DATETIME(3) NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE messages DROP COLUMN send_at');
    await q.query('ALTER TABLE accounts DROP COLUMN time_zone, DROP COLUMN send_window');
  }
}
