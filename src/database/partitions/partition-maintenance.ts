import {
  aheadUntil,
  boundsAfter,
  dayStart,
  firstBounds,
  lastBoundMs,
  msOfId,
  ALL_PARTITIONED_TABLES,
  type PartitionedTable,
} from './day-partitions.js';
import type { PartitionStore } from './partition.store.js';

/** How far ahead partitions are made, and how many days each covers. */
export interface PartitionPlan {
  aheadDays: number;
  spanDays: number;
}

export interface TableChange {
  table: PartitionedTable;
  /** Partitions made. */
  added: string[];
  seconds: number;
}

/**
 * Makes each partitioned table's partitions through `aheadDays` days after today, split off the
 * catch-all; an unpartitioned table is left alone (`db partition` converts it). All tables get
 * the same bounds: each grows from its own last bound by the same spans.
 */
export async function makePartitionsAhead(
  store: PartitionStore,
  plan: PartitionPlan,
  nowMs = Date.now(),
): Promise<TableChange[]> {
  const out: TableChange[] = [];
  for (const { table } of ALL_PARTITIONED_TABLES) {
    const bounds = await store.bounds(table);
    if (bounds.length === 0) continue;
    const started = performance.now();
    const from = lastBoundMs(bounds) ?? dayStart(nowMs);
    const added = boundsAfter(from, aheadUntil(nowMs, plan.aheadDays), plan.spanDays);
    if (added.length) await store.add(table, added);
    out.push({ table, added: added.map((b) => b.name), seconds: (performance.now() - started) / 1000 });
  }
  return out;
}

/**
 * Partitions the tables that are not yet: one partition per span from the oldest message's
 * day (request_logs: its oldest row's, as it is pruned by its own age) through the days ahead,
 * then the catch-all. Each table is copied once, its unique keys reworked in the same pass.
 */
export async function partitionTables(
  store: PartitionStore,
  plan: PartitionPlan,
  nowMs = Date.now(),
): Promise<TableChange[]> {
  const oldest = await store.oldestMessageId();
  const from = (ms: number | undefined) =>
    firstBounds(ms ?? nowMs, aheadUntil(nowMs, plan.aheadDays), plan.spanDays);
  const out: TableChange[] = [];
  for (const { table } of ALL_PARTITIONED_TABLES) {
    if ((await store.bounds(table)).length) continue;
    const started = performance.now();
    const bounds =
      table === 'request_logs'
        ? from(await store.oldestRequestLogMs())
        : from(oldest ? msOfId(oldest) : undefined);
    await store.partition(table, bounds);
    out.push({ table, added: bounds.map((b) => b.name), seconds: (performance.now() - started) / 1000 });
  }
  return out;
}
