import type { MigrationInterface, QueryRunner } from 'typeorm';
import {
  aheadUntil,
  firstBounds,
  KEYS_BEFORE,
  PARTITIONED_TABLES,
  partitionTableSql,
} from '../../partitions/day-partitions.js';

/**
 * Partitions messages, message_events and message_parts by day of their message id, when all
 * three are empty (a new installation): today's partition and the catch-all, about
 * 0.1 s of DDL a table; the days ahead are made by `db migrate` and the workers. Tables that
 * hold rows are left as they are: partitioning them copies every row while writes wait, which
 * a start must never do unasked; `db partition` does it, when the operator chooses.
 */
export class PartitionMessageTablesByDay1796597880783 implements MigrationInterface {
  name = 'PartitionMessageTablesByDay1796597880783';

  async up(q: QueryRunner): Promise<void> {
    for (const { table } of PARTITIONED_TABLES) {
      const rows = (await q.query(`SELECT 1 FROM ${table} LIMIT 1`)) as unknown[];
      if (rows.length) return;
    }
    const now = Date.now();
    const bounds = firstBounds(now, aheadUntil(now, 0), 1);
    // A table partitioned already (a run cut short after it) is left as it is.
    for (const { table } of PARTITIONED_TABLES)
      if (!(await partitioned(q, table))) await q.query(partitionTableSql(table, bounds));
  }

  async down(q: QueryRunner): Promise<void> {
    for (const { table } of PARTITIONED_TABLES) {
      if (!(await partitioned(q, table))) continue;
      await q.query(`ALTER TABLE ${table} REMOVE PARTITIONING`);
      if (KEYS_BEFORE[table].length) await q.query(`ALTER TABLE ${table} ${KEYS_BEFORE[table].join(', ')}`);
    }
  }
}

async function partitioned(q: QueryRunner, table: string): Promise<boolean> {
  const [{ n }] = (await q.query(
    `SELECT COUNT(*) AS n FROM information_schema.PARTITIONS
      WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND PARTITION_NAME IS NOT NULL`,
    [table],
  )) as Array<{ n: string }>;
  return Number(n) > 0;
}
