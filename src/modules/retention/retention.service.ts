import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import type { RetentionConfig } from '../../config/app-config.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { AppException } from '../../platform/errors/app.exception.js';
import { byDay, groupRows } from './archive-batches.js';
import { MessageArchive, type ArchiveBatch } from './message-archive.js';
import { PartitionPrune } from './partition-prune.service.js';
import { addCounts, RetentionStore, type RemovedCounts, type RetainedMessage } from './retention.store.js';
import { ShortLinkStore } from '../links/short-link.store.js';

export interface PruneOptions {
  /** Remove what was last changed before this time; default: now minus MESSAGE_RETENTION_DAYS. */
  before?: Date;
  /** Refuse to run without ARCHIVE_DIR (`db archive`): nothing is removed without its copy. */
  requireArchive?: boolean;
  /** Called after each batch with the totals so far. */
  onProgress?: (removed: RemovedCounts) => void;
  /** Stops the run between two batches (a process shutting down). */
  signal?: AbortSignal;
  /** How long to wait for the retention lock when another process holds it; default 0. */
  lockWaitSeconds?: number;
}

export interface PruneResult {
  before: Date;
  archiveDir: string | null;
  removed: RemovedCounts;
  archived: { members: number; rows: number };
  /** Day partitions dropped whole, and those before the cutoff kept for a message that must stay. */
  partitions: { dropped: string[]; kept: string[] };
  seconds: number;
}

/** Ids are 13 digits of epoch milliseconds then 6 more: the first id of a millisecond. */
const firstIdOf = (ms: number) => `${ms}000000`;
/** Ids are taken at acceptance, created_at a moment later: the walk reaches this far past `before`. */
const ID_SLACK_MS = 60_000;
/** Others' writes are counted over about this long, once the prune has watched that long... */
const WRITES_WINDOW_MS = 1000;
/** ...and over this long at least (a few milliseconds hold a handful of rows or none). */
const FIRST_LOOK_MS = 200;

/** While a day's archive rests, others' writes are looked at this often. */
const ARCHIVE_LOOK_MS = 250;

/** The pause after a batch that took `batchMs`: `factor` times as long, `minMs` at least. */
export function pauseAfterBatch(batchMs: number, minMs: number, factor: number): number {
  return Math.max(minMs, factor * batchMs);
}

/** The pause factor for a database others wrote `rowsPerSecond` rows to since the batch before. */
export function paceFactor(
  rowsPerSecond: number,
  pace: Pick<RetentionConfig, 'pauseFactor' | 'quietPauseFactor' | 'quietWrites'>,
): number {
  return rowsPerSecond < pace.quietWrites ? pace.quietPauseFactor : pace.pauseFactor;
}

/**
 * Message retention: final messages (DELIVERED, UNDELIVERED, EXPIRED, FAILED, REJECTED,
 * CANCELLED) last changed before the cutoff are removed with their events, parts, receipts and
 * callback attempts (and short links), and a request once none of its messages is left; short
 * links older than LINK_RETENTION_DAYS go too, whatever their message's age. Money (ledger, balances,
 * spend rows) is never touched. Rows go in batches of RETENTION_BATCH messages, each followed by
 * a pause of a factor times its own duration (RETENTION_PAUSE_MS at least): RETENTION_PAUSE_FACTOR
 * while others write to the database, so the sends that share it keep their latency, and
 * RETENTION_QUIET_PAUSE_FACTOR while it is quiet, so a prune at night goes fast. With
 * ARCHIVE_DIR set each batch is written to the archive and verified first.
 */
@Injectable()
export class RetentionService {
  constructor(
    private readonly store: RetentionStore,
    private readonly byPartition: PartitionPrune,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly links: ShortLinkStore,
  ) {}

  defaultBefore(now = Date.now()): Date {
    return new Date(now - this.config.retention.messageDays * 86_400_000);
  }

  /** One prune under the retention lock; undefined when another process still holds it after the wait. */
  async prune(o: PruneOptions = {}): Promise<PruneResult | undefined> {
    const archiveDir = this.config.retention.archiveDir ?? null;
    if (o.requireArchive && !archiveDir)
      throw new AppException('VALIDATION_ERROR', 'ARCHIVE_DIR is not set: there is nowhere to archive to.');
    const before = o.before ?? this.defaultBefore();
    return this.store.exclusively(
      this.store.lockName(),
      () => this.run(before, archiveDir, o),
      o.lockWaitSeconds ?? 0,
    );
  }

  private async run(before: Date, archiveDir: string | null, o: PruneOptions): Promise<PruneResult> {
    const { onProgress, signal } = o;
    const started = Date.now();
    const { batch, pauseMs } = this.config.retention;
    // The pause grows with the time the batch took (as pt-archiver's --sleep-coef), by a factor
    // chosen from what others wrote since the batch before: beside sends a batch takes about as
    // long as alone (its time goes to reading index pages), yet costs them CPU and cached pages,
    // so their writes are the signal, not the batch's duration.
    // A stop ends a pause (beside sends it lasts seconds), not only the loop after it.
    const rest = (ms: number) =>
      ms > 0 ? sleep(ms, undefined, { signal }).catch(() => undefined) : undefined;
    // What others write is counted over the last second, or since the run began.
    const sample = async () => ({ rows: await this.store.rowsWritten(), at: performance.now() });
    const marks = [await sample()];
    const factorNow = async () => {
      // A first batch quicker than FIRST_LOOK_MS waits out the rest of it (nothing does when
      // there is nothing to remove).
      await rest(FIRST_LOOK_MS - (performance.now() - marks[0].at));
      const now = await sample();
      marks.push(now);
      while (marks.length > 2 && now.at - marks[1].at >= WRITES_WINDOW_MS) marks.shift();
      const perSecond = ((now.rows - marks[0].rows) * 1000) / Math.max(1, now.at - marks[0].at);
      return paceFactor(perSecond, this.config.retention);
    };
    const pauseAfter = async (batchStarted: number) => {
      const batchMs = performance.now() - batchStarted;
      const pause = async () => pauseAfterBatch(batchMs, pauseMs, await factorNow());
      const paused = await pause();
      await rest(paused);
      if (signal?.aborted) return;
      // Sends that began during a quiet (short) pause lengthen it to a busy one before the next batch.
      const longer = await pause();
      if (longer > paused) await rest(longer - paused);
    };
    const archive = archiveDir ? new MessageArchive(archiveDir) : null;
    const idBound = firstIdOf(before.getTime() + ID_SLACK_MS);
    const archived = { members: 0, rows: 0 };
    const keep = async (b: ArchiveBatch) => {
      if (!archive) return;
      const w = await archive.append(b);
      archived.members += w.members;
      archived.rows += w.rows;
    };
    // Whole days go first, their partitions dropped: their messages are not deleted one by one, so
    // they pause only RETENTION_PAUSE_MS between statements. A day's archive batch reads and
    // compresses 10,000 messages' rows, CPU the sends beside it need: while others write it
    // rests the busy factor times the batch, and goes on as soon as their writes fall quiet
    // (a burst of sends holds the archive back only while it lasts).
    const restAfterArchive = async (batchMs: number) => {
      const until = performance.now() + pauseAfterBatch(batchMs, pauseMs, this.config.retention.pauseFactor);
      await rest(pauseMs);
      while (!signal?.aborted && performance.now() < until) {
        if ((await factorNow()) === this.config.retention.quietPauseFactor) return;
        await rest(Math.min(ARCHIVE_LOOK_MS, until - performance.now()));
      }
    };
    const days = await this.byPartition.run(before, {
      keep: archive ? keep : undefined,
      batch,
      rest: async () => void (await rest(pauseMs)),
      restAfterArchive,
      signal,
      onProgress,
    });
    let removed = days.removed;
    let after = '0';
    while (!signal?.aborted) {
      const batchStarted = performance.now();
      const rows = archive
        ? await this.store.candidates(after, idBound, before, batch)
        : await this.store.removable(after, idBound, before, batch);
      if (rows.length === 0) break;
      after = String(rows[rows.length - 1].id);
      const ids = rows.map((r) => String(r.id));
      if (archive) await keep(byDay(rows as RetainedMessage[], await this.store.related(ids)));
      const requestIds = [...new Set(rows.map((r) => String(r.send_request_id)))];
      removed = addCounts(removed, await this.store.remove(ids, requestIds, before));
      onProgress?.(removed);
      if (rows.length < batch) break;
      await pauseAfter(batchStarted);
    }
    // Receipts that matched no message and were given up belong to no message: they go by age.
    while (!signal?.aborted) {
      const batchStarted = performance.now();
      const receipts = await this.store.unmatchedReceipts(before, batch);
      if (receipts.length === 0) break;
      await keep(new Map(groupRows(receipts, 'received_at', 'delivery_reports')));
      const n = await this.store.removeReceipts(receipts.map((r) => String(r.id)));
      removed = { ...removed, delivery_reports: removed.delivery_reports + n };
      onProgress?.(removed);
      if (receipts.length < batch) break;
      await pauseAfter(batchStarted);
    }
    // Expired short links (they already answer 404) go by their own age, not their message's.
    const linksBefore = new Date(started - this.config.shortLinks.retentionDays * 86_400_000);
    while (!signal?.aborted) {
      const batchStarted = performance.now();
      const n = await this.links.removeExpired(linksBefore, batch);
      removed = { ...removed, short_links: removed.short_links + n };
      onProgress?.(removed);
      if (n < batch) break;
      await pauseAfter(batchStarted);
    }
    const partitions = { dropped: days.dropped, kept: days.kept };
    return { before, archiveDir, removed, archived, partitions, seconds: (Date.now() - started) / 1000 };
  }
}
