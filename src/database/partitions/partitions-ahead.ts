import { DataSource, type DataSourceOptions } from 'typeorm';
import { retentionLockName, withNamedLock } from '../named-lock.js';
import { makePartitionsAhead, type PartitionPlan } from './partition-maintenance.js';
import { PartitionStore } from './partition.store.js';

/** A prune dropping partitions finishes its statement within this long; a longer run is left to the workers. */
const LOCK_WAIT_SECONDS = 10;

/**
 * `db migrate`'s last step: the partitions through the days ahead (main, notification and log
 * databases), on connections of their own, under the lock prunes hold (taken on the main
 * database). Answers the partitions made ("table.name"), or null when another process held the
 * lock throughout.
 */
export async function partitionsAhead(
  options: DataSourceOptions,
  notificationOptions: DataSourceOptions,
  logOptions: DataSourceOptions,
  plan: { partitionDaysAhead: number; partitionSpanDays: number },
): Promise<string[] | null> {
  const open: DataSource[] = [];
  const connect = async (o: DataSourceOptions) => {
    try {
      const source = await new DataSource({ ...o, poolSize: 2 } as DataSourceOptions).initialize();
      open.push(source);
      return source;
    } catch (err) {
      await Promise.all(open.map((s) => s.destroy()));
      throw err;
    }
  };
  const ds = await connect(options);
  const nds = await connect(notificationOptions);
  const lds = await connect(logOptions);
  try {
    const p: PartitionPlan = { aheadDays: plan.partitionDaysAhead, spanDays: plan.partitionSpanDays };
    const changes = await withNamedLock(
      ds,
      retentionLockName(ds),
      () => makePartitionsAhead(new PartitionStore(ds, nds, lds), p),
      LOCK_WAIT_SECONDS,
    );
    return changes ? changes.flatMap((c) => c.added.map((name) => `${c.table}.${name}`)) : null;
  } finally {
    await Promise.all(open.map((s) => s.destroy()));
  }
}
