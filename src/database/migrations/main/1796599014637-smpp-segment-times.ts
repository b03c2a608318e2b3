import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The send_at and validity_period a part's submit_sm asked for (schedule_delivery_time,
 * validity_period), kept with the part: the text made of the parts is sent with its first
 * part's, by whichever process completes it. NULL: at once, the default validity.
 */
export class SmppSegmentTimes1796599014637 implements MigrationInterface {
  name = 'SmppSegmentTimes1796599014637';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      'ALTER TABLE smpp_segments ADD COLUMN send_at DATETIME(3) NULL, ADD COLUMN validity_period INT UNSIGNED NULL',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE smpp_segments DROP COLUMN send_at, DROP COLUMN validity_period');
  }
}
