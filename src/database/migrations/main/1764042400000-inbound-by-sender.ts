import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A HELP or START auto-reply goes to one sender at most once in a while (AUTO_REPLY_REPEAT_AFTER):
 * whether the sender already had one is read through this index, never by scanning an account's
 * inbound messages.
 */
export class InboundBySender1764042400000 implements MigrationInterface {
  name = 'InboundBySender1764042400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      'ALTER TABLE inbound_messages ADD KEY ix_inbound_messages_sender (account_id, test_mode, sender, received_at)',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE inbound_messages DROP INDEX ix_inbound_messages_sender');
  }
}
