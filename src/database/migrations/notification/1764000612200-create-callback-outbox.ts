import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every callback event until it is done with (delivered, refused, or out of attempts): Redis
 * holds the queue, MySQL keeps the list, so events lost with Redis (down when the state
 * changed, or restarted without its data) are queued again. queued_at is NULL while an event
 * still has to be put on the queue.
 */
export class CreateCallbackOutbox1764000612200 implements MigrationInterface {
  name = 'CreateCallbackOutbox1764000612200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE callback_outbox (
      event_id CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
      job MEDIUMTEXT NOT NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      queued_at DATETIME(3) NULL,
      KEY ix_callback_outbox_queued (queued_at, created_at)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE callback_outbox');
  }
}
