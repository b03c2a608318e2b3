import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * smpp_segments: the parts of a long text submitted over SMPP as several submit_sm (UDH or SAR),
 * kept until the last one is in, whichever API process each arrived on. `id` is the message_id
 * its submit_sm_resp gave; `message_id` the one message stored from the whole. `open` is 1
 * while the text waits for parts and NULL after (stored, incomplete after 60 s, refused), so a
 * reference the client uses again later starts a new text.
 */
export class CreateSmppSegments1764060100000 implements MigrationInterface {
  name = 'CreateSmppSegments1764060100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE smpp_segments (
      id BIGINT UNSIGNED NOT NULL PRIMARY KEY,
      credential_id INT UNSIGNED NOT NULL,
      source VARCHAR(21) NOT NULL,
      destination VARCHAR(21) NOT NULL,
      ref INT UNSIGNED NOT NULL,
      total TINYINT UNSIGNED NOT NULL,
      seqnum TINYINT UNSIGNED NOT NULL,
      registered_delivery TINYINT UNSIGNED NOT NULL DEFAULT 0,
      text TEXT NOT NULL,
      open TINYINT UNSIGNED NULL DEFAULT 1,
      state ENUM('waiting','stored','incomplete','refused') NOT NULL DEFAULT 'waiting',
      message_id BIGINT UNSIGNED NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      UNIQUE KEY uq_smpp_segments_part (credential_id, source, destination, ref, total, seqnum, open),
      KEY ix_smpp_segments_open (open, created_at),
      KEY ix_smpp_segments_message (message_id)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE smpp_segments');
  }
}
