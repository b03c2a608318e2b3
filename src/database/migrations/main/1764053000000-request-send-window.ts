import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * send_requests.send_window: a request's own send window as JSON `{from, to, days}` (NULL: it
 * named none and keeps the account's). A reschedule applies it again from the new time, as the
 * send did at acceptance.
 */
export class RequestSendWindow1764053000000 implements MigrationInterface {
  name = 'RequestSendWindow1764053000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE send_requests ADD COLUMN send_window VARCHAR(200) NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE send_requests DROP COLUMN send_window');
  }
}
