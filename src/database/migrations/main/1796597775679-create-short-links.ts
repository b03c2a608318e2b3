import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The short links of messages sent with shorten_links: one row per link and message, written in
 * the message's transaction. The code is the primary key (the redirect reads one row by it;
 * ascii_bin, since codes differ by case); clicks and previews (link-preview fetchers and scanners)
 * are counted apart. Rows go with their message (prune, erasure) or after LINK_RETENTION_DAYS.
 */
export class CreateShortLinks1796597775679 implements MigrationInterface {
  name = 'CreateShortLinks1796597775679';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE short_links (
      code VARCHAR(12) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
      message_id BIGINT UNSIGNED NOT NULL,
      position SMALLINT UNSIGNED NOT NULL,
      url TEXT NOT NULL,
      created_at DATETIME(3) NOT NULL,
      clicks INT UNSIGNED NOT NULL DEFAULT 0,
      previews INT UNSIGNED NOT NULL DEFAULT 0,
      first_click_at DATETIME(3) NULL,
      last_click_at DATETIME(3) NULL,
      KEY ix_short_links_message (message_id, position),
      KEY ix_short_links_created (created_at)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE short_links');
  }
}
