import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat-to-SMS fallback.
 *
 * - send_requests.fallback_after_seconds / fallback_sender / fallback_body: a chat request's
 *   fallback (NULL: none; sender and body NULL: the chat's own).
 * - messages.fallback_due_at: set on a chat message while its fallback may still be needed: when
 *   the SMS is due (after_seconds from acceptance, or at once when the chat message fails), NULL
 *   once it is made or no longer needed. Workers read the few rows where it is set through its
 *   own index, claiming each by moving it a lease ahead, so MySQL, not Redis, holds what is due.
 * - messages.fallback_of: on a fallback SMS, the chat message it stands in for. Unique, so a
 *   chat message has at most one fallback however often its creation is tried.
 */
export class ChatSmsFallback1764052000000 implements MigrationInterface {
  name = 'ChatSmsFallback1764052000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE send_requests
      ADD COLUMN fallback_after_seconds INT UNSIGNED NULL,
      ADD COLUMN fallback_sender VARCHAR(64) NULL,
      ADD COLUMN fallback_body TEXT NULL`);
    await q.query(`ALTER TABLE messages
      ADD COLUMN fallback_due_at DATETIME(3) NULL,
      ADD COLUMN fallback_of BIGINT UNSIGNED NULL,
      ADD KEY ix_messages_fallback_due (fallback_due_at),
      ADD UNIQUE KEY uq_messages_fallback_of (fallback_of)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE messages DROP KEY uq_messages_fallback_of, DROP KEY ix_messages_fallback_due,
      DROP COLUMN fallback_of, DROP COLUMN fallback_due_at`);
    await q.query(`ALTER TABLE send_requests
      DROP COLUMN fallback_body, DROP COLUMN fallback_sender, DROP COLUMN fallback_after_seconds`);
  }
}
