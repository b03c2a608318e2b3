import type { HistoryTable, MessageHistoryStore } from '../messages/message-history.store.js';
import type { EventCatchUpStore } from './event-catch-up.store.js';

/** Journal rows read per step; the mark moves after each step's events are kept. */
export const CATCH_UP_BATCH = 2000;
/** Steps per sweep round: a backlog larger than this goes on at the next round. */
const STEPS_PER_ROUND = 50;

/**
 * A table read in id order (ids given in insertion order) that events are derived from after
 * the fact: message_events for state changes, messages for what a send answered.
 */
export interface CatchUpJournal<T> {
  /** The highest id so far (0 when none). */
  lastId(): Promise<string>;
  /** The id of the `rows`-th row after `afterId`, at most `uptoId` (`uptoId` when fewer are left). */
  batchEnd(afterId: string, uptoId: string, rows: number): Promise<string>;
  /** The rows in (`afterId`, `uptoId`] of these accounts, in id order. */
  read(accountIds: string[], afterId: string, uptoId: string): Promise<T[]>;
  /**
   * Where the mark goes when the rows past `afterId` start before `since` (their events are past
   * what can be told kept from not kept): the last id recorded before it; null when they start
   * later.
   */
  skipTo(afterId: string, since: Date): Promise<string | null>;
}

/** A table of the messages' history as a journal, its rows read by `read`. */
export function historyJournal<T>(
  history: MessageHistoryStore,
  table: HistoryTable,
  read: (accountIds: string[], afterId: string, uptoId: string) => Promise<T[]>,
): CatchUpJournal<T> {
  return {
    lastId: () => history.lastId(table),
    batchEnd: (afterId, uptoId, rows) => history.batchEnd(table, afterId, uptoId, rows),
    read,
    skipTo: (afterId, since) => history.skipTo(table, afterId, since),
  };
}

/** What a catch-up derives from its journal: the events one kind of listener owes. */
export interface CatchUpTarget<T> {
  /** The accounts whose rows may owe anything now; none: nothing is read. */
  accounts(): Promise<string[]>;
  /** Keeps what the rows owe and is not kept yet; returns how many it kept now. */
  keep(rows: T[]): Promise<number>;
}

/** The catch-up's limits: how late a transaction commits, and how far back the checks reach. */
export interface CatchUpLimits {
  graceMs: number;
  /** How far back the catch-up may read: what tells a kept event (the delivery log) is kept this long. */
  reachMs: number;
  /** Told when the mark was moved past rows older than `reachMs` without reading them. */
  skipped(fromId: string, toId: string): void;
}

/**
 * The events a listener owes for committed rows are kept after the commit, in another database:
 * a process that dies in between loses them. Each sweep round re-derives them from a journal,
 * after a mark kept in the notification database, and the target keeps only those not kept yet
 * (their ids are derived from the row, so both paths name them alike).
 *
 * Ids are given in insertion order but commit in another: a transaction may commit a lower id
 * after a higher one is seen. So the sweep only passes ids up to a horizon, the highest id seen
 * at least `graceMs` before (every transaction that had taken an id by then has committed since,
 * as none lasts that long), and takes the next horizon when it reaches one. A row is caught up
 * between one and two grace periods (plus a sweep interval) after its commit. The mark moves only
 * after a step's events are kept, from the value it was read at: two workers sweeping at once
 * repeat at most one step, whose events are kept once.
 *
 * A mark left behind longer than `reachMs` (no sweep ran for days) is moved to the rows within
 * it unread: what would tell their events kept is gone, and reading them would send again all
 * that was delivered.
 */
export class EventCatchUp<T> {
  constructor(
    private readonly name: string,
    private readonly marks: EventCatchUpStore,
    private readonly journal: CatchUpJournal<T>,
    private readonly limits: CatchUpLimits,
    private readonly target: CatchUpTarget<T>,
  ) {}

  /** Returns how many events were kept that had not been. */
  async round(): Promise<number> {
    const mark = await this.marks.get(this.name, this.limits.graceMs);
    if (!mark) {
      // The first round: what came before is not owed by the catch-up.
      await this.marks.start(this.name, await this.journal.lastId());
      return 0;
    }
    let last = mark.lastId;
    const skip = await this.journal.skipTo(last, new Date(Date.now() - this.limits.reachMs));
    if (skip !== null && BigInt(skip) > BigInt(last)) {
      if (!(await this.marks.advance(this.name, last, skip))) return 0;
      this.limits.skipped(last, skip);
      last = skip;
    }
    const horizon = mark.horizonId;
    if (horizon === null || BigInt(horizon) <= BigInt(last)) {
      await this.marks.takeHorizon(this.name, await this.journal.lastId());
      return 0;
    }
    if (!mark.horizonDue) return 0;
    const accounts = await this.target.accounts();
    let kept = 0;
    for (let step = 0; step < STEPS_PER_ROUND && BigInt(last) < BigInt(horizon); step++) {
      // With no account owed anything, no row is read: the mark goes to the horizon at once.
      const end = accounts.length ? await this.journal.batchEnd(last, horizon, CATCH_UP_BATCH) : horizon;
      if (accounts.length) kept += await this.target.keep(await this.journal.read(accounts, last, end));
      if (!(await this.marks.advance(this.name, last, end))) return kept;
      last = end;
    }
    if (BigInt(last) >= BigInt(horizon)) await this.marks.takeHorizon(this.name, await this.journal.lastId());
    return kept;
  }
}
