import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How far the recovery sweep has re-derived the events owed for the main database's
 * message_events (one row per kind of event it derives): `last_id` is the last message_events.id
 * whose events are known kept; `horizon_id` the highest id seen at `horizon_at`, which the sweep
 * reaches once the grace period has passed since then (a transaction that took a lower id and
 * committed late is in by that time).
 */
export class CreateEventCatchUp1796600000000 implements MigrationInterface {
  name = 'CreateEventCatchUp1796600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE event_catch_up (
      name VARCHAR(32) CHARACTER SET ascii NOT NULL PRIMARY KEY,
      last_id BIGINT UNSIGNED NOT NULL,
      horizon_id BIGINT UNSIGNED NULL,
      horizon_at DATETIME(3) NULL,
      updated_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE event_catch_up');
  }
}
