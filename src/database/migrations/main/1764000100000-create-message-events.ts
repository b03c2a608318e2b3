import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The state history of each message. */
export class CreateMessageEvents1764000100000 implements MigrationInterface {
  name = 'CreateMessageEvents1764000100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE message_events (
      id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
      message_id BIGINT UNSIGNED NOT NULL,
      status ENUM('ACKNOWLEDGED','SENT','DELIVERED','UNDELIVERED','EXPIRED','FAILED','REJECTED') NOT NULL,
      reason VARCHAR(64) NULL,
      occurred_at DATETIME(3) NOT NULL,
      KEY ix_message_events_message (message_id, id)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE message_events');
  }
}
