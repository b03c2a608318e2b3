import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The deliver_sm owed to customers' SMPP binds (receipts of messages submitted over SMPP, and
 * inbound SMS), kept until a receiver of the credential answers them. The process that commits a
 * state change (a worker) has no binds; an API process with a receiver bound claims due rows
 * (claimed_by and claimed_until: a lease, so two processes never send one row at once), sends
 * them, and deletes each on a deliver_sm_resp OK; a temporary error moves next_attempt_at on.
 * pdu holds the message as JSON (receipt-pdu.ts builds the deliver_sm from it at send time).
 */
export class CreateSmppReceipts1764061000000 implements MigrationInterface {
  name = 'CreateSmppReceipts1764061000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE smpp_receipts (
      id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
      credential_id INT UNSIGNED NOT NULL,
      message_id BIGINT UNSIGNED NULL,
      pdu TEXT NOT NULL,
      attempts SMALLINT UNSIGNED NOT NULL DEFAULT 0,
      next_attempt_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      claimed_by CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NULL,
      claimed_until DATETIME(3) NULL,
      created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
      KEY ix_smpp_receipts_due (credential_id, next_attempt_at),
      KEY ix_smpp_receipts_claim (claimed_by),
      KEY ix_smpp_receipts_created (created_at)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE smpp_receipts');
  }
}
