import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `user_reference_id` is the client's idempotency key and must compare as the
 * exact text sent. Under the table's utf8mb4_unicode_ci, "INV-1" and "inv-1", "ref" and
 * "réf", "a" and "a " were the same key: a different request answered 409, or an identical
 * body under another reference was answered as a replay and never sent. A binary collation
 * without trailing-space padding makes the unique key and the replay lookup exact (MariaDB
 * and MySQL 8 name it differently).
 */
export class ExactUserReferenceId1764000450000 implements MigrationInterface {
  name = 'ExactUserReferenceId1764000450000';

  async up(q: QueryRunner): Promise<void> {
    const [{ v }] = (await q.query('SELECT VERSION() AS v')) as Array<{ v: string }>;
    if (/mariadb/i.test(v)) {
      await q.query(
        'ALTER TABLE send_requests MODIFY user_reference_id VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NULL',
      );
    } else {
      await q.query(
        'ALTER TABLE send_requests MODIFY user_reference_id VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_bin NULL',
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      'ALTER TABLE send_requests MODIFY user_reference_id VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NULL',
    );
  }
}
