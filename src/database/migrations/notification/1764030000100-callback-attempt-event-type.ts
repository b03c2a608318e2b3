import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Callback attempts now record two kinds of event: a message's state change (message_id is the
 * message's row) and an inbound message sent to the account's inbound webhook (message_id is
 * the inbound message's row). The column says which.
 */
export class CallbackAttemptEventType1764030000100 implements MigrationInterface {
  name = 'CallbackAttemptEventType1764030000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      "ALTER TABLE callback_attempts ADD COLUMN event_type VARCHAR(16) CHARACTER SET ascii NOT NULL DEFAULT 'message' AFTER event_id",
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE callback_attempts DROP COLUMN event_type');
  }
}
