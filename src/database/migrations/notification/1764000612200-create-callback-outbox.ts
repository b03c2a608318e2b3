import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Callback events that could not be queued (Redis away when the state changed), kept until they are. */
export class CreateCallbackOutbox1764000612200 implements MigrationInterface {
  name = 'CreateCallbackOutbox1764000612200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE callback_outbox (
      event_id CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
      job MEDIUMTEXT NOT NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      KEY ix_callback_outbox_created (created_at)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE callback_outbox');
  }
}
