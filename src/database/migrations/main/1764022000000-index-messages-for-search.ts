import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The message search pages an account's messages oldest first, filtered by status, channel or
 * recipient. Each index starts with the account and the filtered column and ends with
 * created_at (InnoDB appends the primary key), so a filtered page is one range read in the
 * order it is answered, and an export of millions of rows needs no sort. A user_reference_id
 * names at most one request per channel: the send_requests index finds them for an account
 * without going through the channel.
 */
export class IndexMessagesForSearch1764022000000 implements MigrationInterface {
  name = 'IndexMessagesForSearch1764022000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE messages
         ADD KEY ix_messages_account_status_created (account_id, status, created_at),
         ADD KEY ix_messages_account_channel_created (account_id, channel, created_at),
         ADD KEY ix_messages_account_recipient_created (account_id, recipient, created_at)`,
    );
    await q.query(
      'ALTER TABLE send_requests ADD KEY ix_send_requests_account_reference (account_id, user_reference_id)',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE send_requests DROP KEY ix_send_requests_account_reference');
    await q.query(
      `ALTER TABLE messages
         DROP KEY ix_messages_account_status_created,
         DROP KEY ix_messages_account_channel_created,
         DROP KEY ix_messages_account_recipient_created`,
    );
  }
}
