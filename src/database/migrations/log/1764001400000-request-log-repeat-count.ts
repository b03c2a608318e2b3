import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A key refused for its rate limit can send thousands of requests a second; each 429 used to
 * be a row. Now the 429s of one key within a window are one row, and this column says how
 * many requests it stands for (1 for every ordinary row).
 */
export class RequestLogRepeatCount1764001400000 implements MigrationInterface {
  name = 'RequestLogRepeatCount1764001400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      'ALTER TABLE request_logs ADD COLUMN repeat_count INT UNSIGNED NOT NULL DEFAULT 1 AFTER status',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE request_logs DROP COLUMN repeat_count');
  }
}
