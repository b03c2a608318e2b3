import type { MigrationInterface, QueryRunner } from 'typeorm';
import { aheadUntil, firstBounds, KEYS_BEFORE, partitionTableSql } from '../../partitions/day-partitions.js';

/**
 * Partitions callback_attempts by day on `day_id` (its message's id for a message's event, its
 * arrival for another event: partitions/day-partitions.ts) when it is empty (a new
 * installation): today's partition and the catch-all, the same bounds as the message tables',
 * so a day's attempts are dropped with their messages. A table with rows is left as it is: the
 * column and the partitions copy every row while writes wait; `db partition` does it, when the
 * operator chooses.
 */
export class PartitionCallbackAttemptsByDay1796603000000 implements MigrationInterface {
  name = 'PartitionCallbackAttemptsByDay1796603000000';

  async up(q: QueryRunner): Promise<void> {
    if (((await q.query('SELECT 1 FROM callback_attempts LIMIT 1')) as unknown[]).length) return;
    if (await partitioned(q)) return;
    const now = Date.now();
    await q.query(partitionTableSql('callback_attempts', firstBounds(now, aheadUntil(now, 0), 1)));
  }

  async down(q: QueryRunner): Promise<void> {
    if (!(await partitioned(q))) return;
    await q.query('ALTER TABLE callback_attempts REMOVE PARTITIONING');
    await q.query(`ALTER TABLE callback_attempts ${KEYS_BEFORE.callback_attempts.join(', ')}`);
  }
}

async function partitioned(q: QueryRunner): Promise<boolean> {
  const [{ n }] = (await q.query(
    `SELECT COUNT(*) AS n FROM information_schema.PARTITIONS
      WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'callback_attempts' AND PARTITION_NAME IS NOT NULL`,
  )) as Array<{ n: string }>;
  return Number(n) > 0;
}
