import { Injectable } from '@nestjs/common';
import {
  CATCH_ALL,
  firstIdOf,
  msOfId,
  type PartitionBound,
} from '../../database/partitions/day-partitions.js';
import { PartitionStore } from '../../database/partitions/partition.store.js';
import { byDay, groupRows } from './archive-batches.js';
import type { ArchiveBatch } from './message-archive.js';
import { PartitionPruneStore } from './partition-prune.store.js';
import { ShortLinkStore } from '../links/short-link.store.js';
import {
  addCounts,
  NO_REMOVALS,
  RetentionStore,
  type RemovedCounts,
  type RetainedMessage,
  type Row,
} from './retention.store.js';

/** Rows of the unpartitioned tables removed per statement. */
const CHUNK = 20_000;
/**
 * Messages archived per batch when a whole day goes. Each batch is flushed to disk, read back and
 * listed in the index, file by file: at the walk's 500 a day of a million messages is 2,000 of
 * those rounds, and their fsyncs, not the reads, set the pace. Nothing is deleted row by row
 * here, so a batch holds no lock for longer by being larger.
 */
const ARCHIVE_BATCH = 10_000;
/** A request's id is taken a moment before its messages' ids: its day's range starts this much earlier. */
const REQUEST_SLACK_MS = 60_000;

export interface DayPruneHooks {
  /** Writes a batch to the archive and checks it (absent without ARCHIVE_DIR). */
  keep?: (batch: ArchiveBatch) => Promise<void>;
  /** Rows read per archive batch. */
  batch: number;
  /** Rests between two statements, so others' statements get their turn. */
  rest: (chunkMs: number) => Promise<void>;
  /** Rests after an archive batch that took `batchMs` (as `rest` when absent). */
  restAfterArchive?: (batchMs: number) => Promise<void>;
  signal?: AbortSignal;
  onProgress?: (removed: RemovedCounts) => void;
}

export interface DayPruneResult {
  removed: RemovedCounts;
  /** Partitions dropped, and those before the cutoff kept for a message that must stay. */
  dropped: string[];
  kept: string[];
}

/**
 * A prune of the message tables by partition: each partition wholly before the cutoff whose
 * messages are all final and last changed before it is archived (with ARCHIVE_DIR), then its
 * messages' short links and requests are removed by id range, and the partition is dropped from
 * delivery_reports and callback_attempts (cut on the same days: by id range where they are
 * not), message_events, message_parts and messages, the messages last. A partition holding a
 * message not final (or changed since) stays whole until the day it may go; its final messages
 * still leave by the row walk that follows. A run stopped at any point leaves the partition to
 * the next run, which archives its rows again (an archive may hold a row twice, never lose one).
 */
@Injectable()
export class PartitionPrune {
  constructor(
    private readonly partitions: PartitionStore,
    private readonly days: PartitionPruneStore,
    private readonly rows: RetentionStore,
    private readonly links: ShortLinkStore,
  ) {}

  async run(before: Date, o: DayPruneHooks): Promise<DayPruneResult> {
    const bounds = await this.partitions.bounds('messages');
    const cutoff = BigInt(firstIdOf(before.getTime()));
    const days: Array<{ name: string; from: string; to: string; messages: number }> = [];
    const kept: string[] = [];
    for (const [i, p] of bounds.entries()) {
      if (p.name === CATCH_ALL || p.lessThan === null || BigInt(p.lessThan) > cutoff) break;
      // A day's messages are counted here: no message is added to a day past, nor removed by another prune.
      const { held, messages } = await this.days.survey(p.name, before);
      if (held) kept.push(p.name);
      else
        days.push({ name: p.name, from: i === 0 ? '0' : bounds[i - 1].lessThan!, to: p.lessThan, messages });
    }
    let removed = NO_REMOVALS;
    const outcome = (dropped: string[]) => ({ removed, dropped, kept });
    if (days.length === 0) return outcome([]);
    const reportDays = await this.goneWith('delivery_reports', bounds, days, cutoff, (p) =>
      this.days.holdsWaitingReport(p),
    );
    const attemptDays = await this.goneWith('callback_attempts', bounds, days, cutoff);
    const within = (d: { from: string; to: string }, parts: Array<{ from: bigint; to: bigint }>) =>
      parts.some((r) => r.from <= BigInt(d.from) && BigInt(d.to) <= r.to);
    for (const d of days) {
      if (o.keep) await this.archive(d.from, d.to, before, o);
      // A day whose receipts' (attempts') partition goes with it needs no delete; one whose does
      // not (the table unpartitioned, other bounds, a receipt waiting there) loses them by id range.
      removed = addCounts(removed, {
        ...NO_REMOVALS,
        delivery_reports: within(d, reportDays)
          ? 0
          : await this.chunked((n) => this.days.removeReports(d.from, d.to, n), o),
        callback_attempts: within(d, attemptDays)
          ? 0
          : await this.chunked((n) => this.days.removeAttempts(d.from, d.to, n), o),
        short_links: await this.chunked((n) => this.links.removeOfMessageRange(d.from, d.to, n), o),
      });
      if (o.signal?.aborted) return outcome([]);
    }
    // What no message day archives, in the receipts' and attempts' partitions that go, archived
    // under the day each row arrived: receipts that matched no message, and attempts at other
    // events than a message's (inbound messages', subscribed endpoints').
    const leftovers = [
      ...reportDays.map((r) => ({
        table: 'delivery_reports' as const,
        name: r.name,
        at: 'received_at',
        read: (after: string, n: number) => this.days.unmatchedReports(r.name, after, n),
        count: () => this.days.countReports(r.name),
      })),
      ...attemptDays.map((a) => ({
        table: 'callback_attempts' as const,
        name: a.name,
        at: 'attempted_at',
        read: (after: string, n: number) => this.days.otherAttempts(a.name, after, n),
        count: () => this.days.countAttempts(a.name),
      })),
    ];
    for (const l of leftovers) {
      if (o.keep) await this.archiveRows(l.read, l.at, l.table, o);
      if (o.signal?.aborted) return outcome([]);
      removed = addCounts(removed, { ...NO_REMOVALS, [l.table]: await l.count() });
    }
    const names = days.map((d) => d.name);
    for (const d of days)
      removed = addCounts(removed, {
        ...NO_REMOVALS,
        message_events: await this.days.count('message_events', d.name),
        message_parts: await this.days.count('message_parts', d.name),
        messages: d.messages,
      });
    // The receipts first and the messages last: a run cut short before them finds the days
    // again (and archives their messages with the receipts still there, or already gone).
    await this.partitions.drop(
      'delivery_reports',
      reportDays.map((r) => r.name),
    );
    await this.partitions.drop(
      'callback_attempts',
      attemptDays.map((a) => a.name),
    );
    for (const table of ['message_events', 'message_parts', 'messages'] as const)
      await this.partitions.drop(table, names);
    const first = days[0].from;
    const requestsFrom = first === '0' ? '0' : firstIdOf(msOfId(first) - REQUEST_SLACK_MS);
    removed = addCounts(removed, {
      ...NO_REMOVALS,
      send_requests: await this.chunked(
        (n) => this.days.removeRequests(requestsFrom, days.at(-1)!.to, before, n),
        o,
      ),
    });
    o.onProgress?.(removed);
    return outcome(names);
  }

  /**
   * The partitions of delivery_reports or callback_attempts that go with the message days
   * dropped now: each wholly before the cutoff and within a day dropped now or below the first
   * message partition left (so no message its rows belong to is left), and not held by `holds`
   * (a receipts' partition with a receipt still waiting for a message stays, and goes with a
   * later day once its receipts are given up). A kept day's rows are in its own partition,
   * which is not among them.
   */
  private async goneWith(
    table: 'delivery_reports' | 'callback_attempts',
    bounds: PartitionBound[],
    days: Array<{ name: string; from: string; to: string }>,
    cutoff: bigint,
    holds?: (partition: string) => Promise<boolean>,
  ): Promise<Array<{ name: string; from: bigint; to: bigint }>> {
    const dropped = new Set(days.map((d) => d.name));
    const firstLeft = bounds.findIndex((b) => !dropped.has(b.name));
    const goneBelow = firstLeft <= 0 ? 0n : BigInt(bounds[firstLeft - 1].lessThan!);
    const out: Array<{ name: string; from: bigint; to: bigint }> = [];
    const parts = await this.partitions.bounds(table);
    for (const [i, r] of parts.entries()) {
      if (r.name === CATCH_ALL || r.lessThan === null) break;
      const from = i === 0 ? 0n : BigInt(parts[i - 1].lessThan!);
      const to = BigInt(r.lessThan);
      if (to > cutoff) break;
      const covered = to <= goneBelow || days.some((d) => BigInt(d.from) <= from && to <= BigInt(d.to));
      if (covered && !(await holds?.(r.name))) out.push({ name: r.name, from, to });
    }
    return out;
  }

  /** A partition's rows `read` gives, batch by batch, into the archive under the day of their `at`. */
  private async archiveRows(
    read: (after: string, n: number) => Promise<Row[]>,
    at: string,
    table: 'delivery_reports' | 'callback_attempts',
    o: DayPruneHooks,
  ): Promise<void> {
    let after = '0';
    while (!o.signal?.aborted) {
      const rows = await read(after, o.batch);
      if (rows.length === 0) return;
      after = String(rows[rows.length - 1].id);
      await o.keep!(new Map(groupRows(rows, at, table)));
      if (rows.length < o.batch) return;
    }
  }

  /**
   * The partition's messages and their rows, batch by batch, into the archive: the next batch
   * is read while the one before is written (MariaDB's work and the process's overlap).
   */
  private async archive(from: string, to: string, before: Date, o: DayPruneHooks): Promise<void> {
    const limit = Math.max(o.batch, ARCHIVE_BATCH);
    const read = async (after: string) => {
      const rows: RetainedMessage[] = await this.rows.candidates(after, to, before, limit);
      if (rows.length === 0) return undefined;
      const ids = rows.map((r) => String(r.id));
      return { rows, last: ids[ids.length - 1], related: await this.rows.relatedOfRange(after, ids) };
    };
    let next = read(from === '0' ? '0' : (BigInt(from) - 1n).toString());
    while (!o.signal?.aborted) {
      const started = performance.now();
      const batch = await next;
      if (!batch) return;
      const more = batch.rows.length === limit;
      if (more) {
        next = read(batch.last);
        // Awaited on the next turn; a write that fails first must not leave it unhandled.
        next.catch(() => undefined);
      }
      await o.keep!(byDay(batch.rows, batch.related));
      if (!more) return;
      await (o.restAfterArchive ?? o.rest)(performance.now() - started);
    }
  }

  private async chunked(remove: (limit: number) => Promise<number>, o: DayPruneHooks): Promise<number> {
    let total = 0;
    while (!o.signal?.aborted) {
      const started = performance.now();
      const n = await remove(CHUNK);
      total += n;
      if (n < CHUNK) break;
      await o.rest(performance.now() - started);
    }
    return total;
  }
}
