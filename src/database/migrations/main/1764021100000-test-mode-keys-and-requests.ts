import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Test keys: a key is `live` or `test`, and every send request remembers which kind of key
 * made it. Test requests are stored like live ones but never dispatched to a provider nor
 * charged, and each kind of key sees only its own kind of data. The idempotency key
 * (user_reference_id) gets a namespace per mode, so a test request can never be answered with a
 * live request's reply (or the other way round).
 */
export class TestModeKeysAndRequests1764021100000 implements MigrationInterface {
  name = 'TestModeKeysAndRequests1764021100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      "ALTER TABLE api_keys ADD COLUMN mode ENUM('live','test') NOT NULL DEFAULT 'live' AFTER key_prefix",
    );
    await q.query(`ALTER TABLE send_requests
      ADD COLUMN test_mode TINYINT(1) NOT NULL DEFAULT 0 AFTER api_key_id,
      DROP INDEX uq_send_requests_reference,
      ADD UNIQUE KEY uq_send_requests_reference (account_id, channel, test_mode, user_reference_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE send_requests
      DROP INDEX uq_send_requests_reference,
      ADD UNIQUE KEY uq_send_requests_reference (account_id, channel, user_reference_id),
      DROP COLUMN test_mode`);
    await q.query('ALTER TABLE api_keys DROP COLUMN mode');
  }
}
