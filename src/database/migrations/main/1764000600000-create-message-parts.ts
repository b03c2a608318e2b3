import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One row per SMS part handed to a provider, with the provider's id for it: a multipart message
 * gets one id (and one receipt) per part, and its final state comes from all of them. `id_value`
 * is the id read as a hexadecimal number, written in decimal, so a receipt that writes the same
 * id in decimal or zero-padded is found by index. Rows are written in the transaction that
 * records the message SENT. Messages already SENT before this table existed keep matching by
 * their stored (last part's) id, copied here (a copy run twice adds nothing).
 */
export class CreateMessageParts1764000600000 implements MigrationInterface {
  name = 'CreateMessageParts1764000600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE message_parts (
      message_id BIGINT UNSIGNED NOT NULL,
      part SMALLINT UNSIGNED NOT NULL,
      provider_message_id VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      id_value VARCHAR(40) CHARACTER SET ascii COLLATE ascii_bin NULL,
      status VARCHAR(16) NULL,
      reason VARCHAR(64) NULL,
      reported_at DATETIME(3) NULL,
      PRIMARY KEY (message_id, part),
      KEY ix_message_parts_provider (provider_message_id),
      KEY ix_message_parts_value (id_value)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await q.query(`INSERT INTO message_parts (message_id, part, provider_message_id, id_value)
      SELECT id, 1, provider_message_id,
             CASE WHEN provider_message_id REGEXP '^[0-9A-Fa-f]{1,15}$' THEN CONV(provider_message_id, 16, 10) END
        FROM messages WHERE status = 'SENT' AND channel = 'sms' AND provider_message_id IS NOT NULL AND provider_message_id <> ''
      ON DUPLICATE KEY UPDATE message_parts.part = message_parts.part`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE message_parts');
  }
}
