import { Injectable } from '@nestjs/common';
import { CATCH_ALL, firstIdOf, msOfId } from '../../database/partitions/day-partitions.js';
import { PartitionStore } from '../../database/partitions/partition.store.js';
import { byDay } from './archive-batches.js';
import type { ArchiveBatch } from './message-archive.js';
import { PartitionPruneStore } from './partition-prune.store.js';
import { ShortLinkStore } from '../links/short-link.store.js';
import {
  addCounts,
  NO_REMOVALS,
  RetentionStore,
  type RemovedCounts,
  type RetainedMessage,
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
 * messages' receipts, callback attempts, short links and requests are removed by id range, and the
 * partition is dropped from messages, message_events and message_parts, the messages last. A
 * partition holding a message not final (or changed since) stays whole until the day it may
 * go; its final messages still leave by the row walk that follows. A run stopped at any point
 * leaves the partition to the next run, which archives its rows again (an archive may hold a
 * row twice, never lose one).
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
    const days: Array<{ name: string; from: string; to: string }> = [];
    const kept: string[] = [];
    for (const [i, p] of bounds.entries()) {
      if (p.name === CATCH_ALL || p.lessThan === null || BigInt(p.lessThan) > cutoff) break;
      if (await this.days.holdsKept(p.name, before)) kept.push(p.name);
      else days.push({ name: p.name, from: i === 0 ? '0' : bounds[i - 1].lessThan!, to: p.lessThan });
    }
    let removed = NO_REMOVALS;
    const outcome = (dropped: string[]) => ({ removed, dropped, kept });
    for (const d of days) {
      if (o.keep) await this.archive(d.from, d.to, before, o);
      removed = addCounts(removed, {
        ...NO_REMOVALS,
        delivery_reports: await this.chunked((n) => this.days.removeReports(d.from, d.to, n), o),
        callback_attempts: await this.chunked((n) => this.days.removeAttempts(d.from, d.to, n), o),
        short_links: await this.chunked((n) => this.links.removeOfMessageRange(d.from, d.to, n), o),
      });
      if (o.signal?.aborted) return outcome([]);
    }
    if (days.length === 0) return outcome([]);
    const names = days.map((d) => d.name);
    for (const d of days)
      removed = addCounts(removed, {
        ...NO_REMOVALS,
        message_events: await this.days.count('message_events', d.name),
        message_parts: await this.days.count('message_parts', d.name),
        messages: await this.days.count('messages', d.name),
      });
    // The messages last: a run cut short before them finds the days again.
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

  /** The partition's messages and their rows, batch by batch, into the archive. */
  private async archive(from: string, to: string, before: Date, o: DayPruneHooks): Promise<void> {
    let after = from === '0' ? '0' : (BigInt(from) - 1n).toString();
    while (!o.signal?.aborted) {
      const started = performance.now();
      const limit = Math.max(o.batch, ARCHIVE_BATCH);
      const rows: RetainedMessage[] = await this.rows.candidates(after, to, before, limit);
      if (rows.length === 0) return;
      after = String(rows[rows.length - 1].id);
      await o.keep!(byDay(rows, await this.rows.related(rows.map((r) => String(r.id)))));
      if (rows.length < limit) return;
      await o.rest(performance.now() - started);
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
