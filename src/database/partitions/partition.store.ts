import type { DataSource } from 'typeorm';
import {
  addPartitionsSql,
  databaseOf,
  partitionTableSql,
  quoted,
  type PartitionBound,
  type PartitionedTable,
} from './day-partitions.js';

/**
 * How long a partition change waits for the tables' metadata lock. An ALTER queued behind a
 * long transaction holds up every statement that comes after it on the table, sends included:
 * it gives up soon instead, and the next round tries again (the catch-all takes the rows
 * meanwhile).
 */
const DDL_LOCK_WAIT_SECONDS = 5;
/** The server's answer to a statement it cannot parse (CONVERT PARTITION on MySQL). */
const ER_PARSE_ERROR = 1064;

/** The table a partition of `table` becomes on its way out (`messages_gone_p20261206`). */
const convertedName = (table: PartitionedTable, partition: string) => `${table}_gone_${partition}`;

/**
 * The statements on the partitioned tables' partitions, each on its table's database (the
 * message tables on the main one, delivery_reports and callback_attempts on the notification
 * one, request_logs on the log one; the same when fewer are given): what they are, the rows
 * they hold, and the ALTERs that add, drop and first make them. Rows are not read here beyond
 * the oldest and the counts.
 */
export class PartitionStore {
  /** Whether the server knows CONVERT PARTITION (undefined until a drop tries it). */
  private converts?: boolean;

  constructor(
    private readonly main: DataSource,
    private readonly notifications: DataSource = main,
    private readonly logs: DataSource = main,
  ) {}

  private on(table: PartitionedTable): DataSource {
    const db = databaseOf(table);
    return db === 'main' ? this.main : db === 'log' ? this.logs : this.notifications;
  }

  /** A table's partitions in order; empty when it is not partitioned. */
  async bounds(table: PartitionedTable): Promise<PartitionBound[]> {
    const rows = (await this.on(table).query(
      `SELECT PARTITION_NAME AS name, PARTITION_DESCRIPTION AS lessThan
         FROM information_schema.PARTITIONS
        WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND PARTITION_NAME IS NOT NULL
        ORDER BY PARTITION_ORDINAL_POSITION`,
      [table],
    )) as Array<{ name: string; lessThan: string }>;
    return rows.map((r) => ({
      name: r.name,
      lessThan: r.lessThan === 'MAXVALUE' ? null : String(r.lessThan),
    }));
  }

  async isEmpty(table: PartitionedTable): Promise<boolean> {
    return ((await this.on(table).query(`SELECT 1 FROM ${table} LIMIT 1`)) as unknown[]).length === 0;
  }

  /** The oldest message's id, if any. */
  async oldestMessageId(): Promise<string | undefined> {
    const [row] = (await this.main.query('SELECT MIN(id) AS id FROM messages')) as Array<{
      id: string | null;
    }>;
    return row?.id == null ? undefined : String(row.id);
  }

  /** When the oldest request log was written (epoch milliseconds), if any. */
  async oldestRequestLogMs(): Promise<number | undefined> {
    const [row] = (await this.logs.query('SELECT MIN(created_at) AS at FROM request_logs')) as Array<{
      at: Date | null;
    }>;
    return row?.at == null ? undefined : new Date(row.at).getTime();
  }

  /** Rows the named partitions of a table hold (0 for none named). */
  async rows(table: PartitionedTable, names: string[]): Promise<number> {
    if (names.length === 0) return 0;
    const [{ n }] = (await this.on(table).query(
      `SELECT COUNT(*) AS n FROM ${table} PARTITION (${names.map(quoted).join(', ')})`,
    )) as Array<{ n: string }>;
    return Number(n);
  }

  /** Partitions an unpartitioned table (a copy of the table: writes wait while it runs). */
  async partition(table: PartitionedTable, bounds: PartitionBound[]): Promise<void> {
    await this.on(table).query(partitionTableSql(table, bounds));
  }

  /** Splits `bounds` off the catch-all partition. */
  async add(table: PartitionedTable, bounds: PartitionBound[]): Promise<void> {
    await this.ddl(table, addPartitionsSql(table, bounds));
  }

  /**
   * Removes partitions with their rows (a metadata change: no row is read). Each partition is
   * first made a table of its own, which is then dropped: the table's exclusive lock, which
   * every send queues behind, is held for the conversion's rename (37 to 79 ms for a day of a
   * million rows on MariaDB 10.11) and not for the removal of the partition's file (210 ms),
   * which the DROP TABLE does on a table no one uses. Where CONVERT PARTITION is not known
   * (MySQL has none), one DROP PARTITION of them all. A table left by a run stopped between
   * the two statements is dropped by the next drop on its table.
   */
  async drop(table: PartitionedTable, names: string[]): Promise<void> {
    if (names.length === 0) return;
    await this.dropConverted(table);
    if (this.converts !== false) {
      try {
        for (const name of names) {
          await this.ddl(
            table,
            `ALTER TABLE ${table} CONVERT PARTITION ${quoted(name)} TO TABLE ${quoted(convertedName(table, name))}`,
          );
          await this.dropTable(table, convertedName(table, name));
        }
        this.converts = true;
        return;
      } catch (err) {
        // Only the first statement can fail so: the server does not know it at all.
        if ((err as { errno?: number }).errno !== ER_PARSE_ERROR) throw err;
        this.converts = false;
      }
    }
    await this.ddl(table, `ALTER TABLE ${table} DROP PARTITION ${names.join(', ')}`);
  }

  /** Drops the tables that partitions of `table` were converted to on their way out. */
  private async dropConverted(table: PartitionedTable): Promise<void> {
    const rows = (await this.on(table).query(
      `SELECT TABLE_NAME AS name FROM information_schema.TABLES
        WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE ?`,
      [`${convertedName(table, '').replace(/_/g, '\\_')}p%`],
    )) as Array<{ name: string }>;
    for (const { name } of rows) await this.dropTable(table, name);
  }

  /** Drops a table on `table`'s database: one converted from a partition, which no one uses. */
  private async dropTable(table: PartitionedTable, name: string): Promise<void> {
    await this.on(table).query(`DROP TABLE IF EXISTS ${quoted(name)}`);
  }

  private async ddl(table: PartitionedTable, sql: string): Promise<void> {
    const runner = this.on(table).createQueryRunner();
    await runner.connect();
    try {
      await runner.query(`SET SESSION lock_wait_timeout = ${DDL_LOCK_WAIT_SECONDS}`);
      await runner.query(sql);
    } finally {
      await runner.query('SET SESSION lock_wait_timeout = DEFAULT').catch(() => undefined);
      await runner.release();
    }
  }
}
