import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each worker's report on a connector also carries the last thing that went wrong on its bind
 * (a refused bind, a lost connection, a hand-over that failed) and when it was last seen, for
 * the connectors page and `connectors list --json`.
 */
export class ConnectorStateLastError1764043000000 implements MigrationInterface {
  name = 'ConnectorStateLastError1764043000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE connector_state
      ADD COLUMN last_error VARCHAR(255) NULL AFTER sent_per_second,
      ADD COLUMN last_error_at DATETIME(3) NULL AFTER last_error`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE connector_state DROP COLUMN last_error_at, DROP COLUMN last_error');
  }
}
