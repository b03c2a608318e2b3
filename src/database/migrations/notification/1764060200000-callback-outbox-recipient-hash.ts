import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who a kept callback event is about, as a keyed hash (see outbox-recipient.ts), indexed: an
 * erasure finds a recipient's events by it instead of reading every payload. Rows kept before it
 * have none: an erasure still finds them by their text, and `db hash-outbox` gives them one (the
 * key, SERVER_SECRET, is not known to a migration).
 */
export class CallbackOutboxRecipientHash1764060200000 implements MigrationInterface {
  name = 'CallbackOutboxRecipientHash1764060200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE callback_outbox
      ADD COLUMN recipient_hash BINARY(32) NULL,
      ADD KEY ix_callback_outbox_recipient (recipient_hash)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      'ALTER TABLE callback_outbox DROP KEY ix_callback_outbox_recipient, DROP COLUMN recipient_hash',
    );
  }
}
