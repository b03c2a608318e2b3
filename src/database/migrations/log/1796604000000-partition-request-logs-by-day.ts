import type { MigrationInterface, QueryRunner } from 'typeorm';
import { aheadUntil, firstBounds, KEYS_BEFORE, partitionTableSql } from '../../partitions/day-partitions.js';

/**
 * Partitions request_logs by day on `day_id` (the id-shaped moment of its `created_at`:
 * partitions/day-partitions.ts) when it is empty (a new installation): today's partition and
 * the catch-all, the message tables' bounds, so a day of logs older than
 * REQUEST_LOG_RETENTION_DAYS is dropped whole by `logs prune`. A table with rows is left as it
 * is: the column and the partitions copy every row while writes wait; `db partition` does it,
 * when the operator chooses.
 */
export class PartitionRequestLogsByDay1796604000000 implements MigrationInterface {
  name = 'PartitionRequestLogsByDay1796604000000';

  async up(q: QueryRunner): Promise<void> {
    if (((await q.query('SELECT 1 FROM request_logs LIMIT 1')) as unknown[]).length) return;
    if (await partitioned(q)) return;
    const now = Date.now();
    await q.query(partitionTableSql('request_logs', firstBounds(now, aheadUntil(now, 0), 1)));
  }

  async down(q: QueryRunner): Promise<void> {
    if (!(await partitioned(q))) return;
    await q.query('ALTER TABLE request_logs REMOVE PARTITIONING');
    await q.query(`ALTER TABLE request_logs ${KEYS_BEFORE.request_logs.join(', ')}`);
  }
}

async function partitioned(q: QueryRunner): Promise<boolean> {
  const [{ n }] = (await q.query(
    `SELECT COUNT(*) AS n FROM information_schema.PARTITIONS
      WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'request_logs' AND PARTITION_NAME IS NOT NULL`,
  )) as Array<{ n: string }>;
  return Number(n) > 0;
}
