import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Test keys see only test data, inbound messages and suppressions included: each row says
 * whether it belongs to the account's test side (a test recipient's STOP, a test e-mail's
 * bounce, a list kept with a test key) or its live side. The keys lead with the mode, so a
 * live send's suppression check and a live key's inbound page never read test rows.
 *
 * A send request also says whether it is a STOP confirmation: the one message that goes to a
 * number just suppressed, which the check before hand-over must let through.
 */
export class TestModeInboundAndSuppressions1764031000000 implements MigrationInterface {
  name = 'TestModeInboundAndSuppressions1764031000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      'ALTER TABLE send_requests ADD COLUMN suppression_exempt TINYINT(1) NOT NULL DEFAULT 0 AFTER priority',
    );
    await q.query(`ALTER TABLE suppressions
      ADD COLUMN test_mode TINYINT(1) NOT NULL DEFAULT 0 AFTER account_id,
      DROP PRIMARY KEY,
      ADD PRIMARY KEY (account_id, test_mode, channel, recipient)`);
    await q.query(`ALTER TABLE inbound_messages
      ADD COLUMN test_mode TINYINT(1) NOT NULL DEFAULT 0 AFTER account_id,
      DROP INDEX ix_inbound_messages_account,
      ADD KEY ix_inbound_messages_account (account_id, test_mode, id),
      DROP INDEX ix_inbound_messages_account_to,
      ADD KEY ix_inbound_messages_account_to (account_id, test_mode, recipient, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE send_requests DROP COLUMN suppression_exempt');
    await q.query('DELETE FROM inbound_messages WHERE test_mode = 1');
    await q.query(`ALTER TABLE inbound_messages
      DROP INDEX ix_inbound_messages_account_to,
      ADD KEY ix_inbound_messages_account_to (account_id, recipient, id),
      DROP INDEX ix_inbound_messages_account,
      ADD KEY ix_inbound_messages_account (account_id, id),
      DROP COLUMN test_mode`);
    await q.query('DELETE FROM suppressions WHERE test_mode = 1');
    await q.query(`ALTER TABLE suppressions
      DROP PRIMARY KEY,
      ADD PRIMARY KEY (account_id, channel, recipient),
      DROP COLUMN test_mode`);
  }
}
