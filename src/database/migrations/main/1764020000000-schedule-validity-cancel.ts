import type { MigrationInterface, QueryRunner } from 'typeorm';

const OLD = "'ACKNOWLEDGED','SENT','DELIVERED','UNDELIVERED','EXPIRED','FAILED','REJECTED'";
const NEW = `${OLD},'SCHEDULED','CANCELLED'`;

/**
 * Scheduled sends, validity periods and cancellation.
 *
 * - send_requests.send_at: when the request's messages are to go (NULL: at once); due_at: the
 *   same while some of its messages still wait for it, NULL once they are released. The due
 *   scanner reads the small set of rows with due_at set through its own index, so MySQL, not a
 *   delayed job in Redis, says what is due.
 * - send_requests.validity_period / valid_until: a message not handed to a provider by then ends
 *   EXPIRED (VALIDITY_PERIOD_ELAPSED); NULL for requests stored before this migration.
 * - messages.claimed_at: set while a worker hands the message over, so a cancel or an expiry that
 *   races the hand-over leaves it alone (it is either sent or cancelled, never both).
 * - send_requests.cancel_requested_at: set when the whole request is cancelled; from then on no
 *   worker starts handing its messages over, so the cancel is not outrun by the dispatch.
 * - Two states: SCHEDULED (before ACKNOWLEDGED) and CANCELLED (final). New enum values go at the
 *   end, which MariaDB applies without rebuilding the table.
 */
export class ScheduleValidityCancel1764020000000 implements MigrationInterface {
  name = 'ScheduleValidityCancel1764020000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE send_requests
      ADD COLUMN send_at DATETIME(3) NULL,
      ADD COLUMN due_at DATETIME(3) NULL,
      ADD COLUMN validity_period INT UNSIGNED NULL,
      ADD COLUMN valid_until DATETIME(3) NULL,
      ADD COLUMN cancel_requested_at DATETIME(3) NULL,
      ADD KEY ix_send_requests_due (due_at)`);
    await q.query(`ALTER TABLE messages
      MODIFY status ENUM(${NEW}) NOT NULL,
      ADD COLUMN claimed_at DATETIME(3) NULL`);
    await q.query(`ALTER TABLE message_events MODIFY status ENUM(${NEW}) NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE message_events MODIFY status ENUM(${OLD}) NOT NULL`);
    await q.query(`ALTER TABLE messages DROP COLUMN claimed_at, MODIFY status ENUM(${OLD}) NOT NULL`);
    await q.query(`ALTER TABLE send_requests DROP KEY ix_send_requests_due,
      DROP COLUMN cancel_requested_at, DROP COLUMN valid_until, DROP COLUMN validity_period, DROP COLUMN due_at, DROP COLUMN send_at`);
  }
}
