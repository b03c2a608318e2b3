import { DataSource, type DataSourceOptions } from 'typeorm';
import { retentionLockName, withNamedLock } from '../named-lock.js';
import { makePartitionsAhead, type PartitionPlan } from './partition-maintenance.js';
import { PartitionStore } from './partition.store.js';

/** A prune dropping partitions finishes its statement within this long; a longer run is left to the workers. */
const LOCK_WAIT_SECONDS = 10;

/**
 * `db migrate`'s last step: the main database's partitions through the days ahead, on a
 * connection of its own, under the lock prunes hold. Answers the partitions made ("table.name"),
 * or null when another process held the lock throughout.
 */
export async function partitionsAhead(
  options: DataSourceOptions,
  plan: { partitionDaysAhead: number; partitionSpanDays: number },
): Promise<string[] | null> {
  const ds = await new DataSource({ ...options, poolSize: 2 } as DataSourceOptions).initialize();
  try {
    const p: PartitionPlan = { aheadDays: plan.partitionDaysAhead, spanDays: plan.partitionSpanDays };
    const changes = await withNamedLock(
      ds,
      retentionLockName(ds),
      () => makePartitionsAhead(new PartitionStore(ds), p),
      LOCK_WAIT_SECONDS,
    );
    return changes ? changes.flatMap((c) => c.added.map((name) => `${c.table}.${name}`)) : null;
  } finally {
    await ds.destroy();
  }
}
