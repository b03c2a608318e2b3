import type { MessageHistoryStore, RecordedChange } from '../messages/message-history.store.js';
import type { EventCatchUpStore } from './event-catch-up.store.js';

/** message_events rows read per step; the mark moves after each step's events are kept. */
export const CATCH_UP_BATCH = 2000;
/** Steps per sweep round: a backlog larger than this goes on at the next round. */
const STEPS_PER_ROUND = 50;

/** What a catch-up derives from the state history: the events one kind of listener owes. */
export interface CatchUpTarget {
  /** The accounts whose changes may owe anything now; none: nothing is read. */
  accounts(): Promise<string[]>;
  /** Keeps what the changes owe and is not kept yet; returns how many it kept now. */
  keep(changes: RecordedChange[]): Promise<number>;
}

/**
 * The events a listener owes for committed state changes are kept after the commit, in another
 * database: a process that dies in between loses them. Each sweep round re-derives them from
 * message_events, after a mark kept in the notification database, and the target keeps only
 * those not kept yet (their ids are derived from the change, so both paths name them alike).
 *
 * Ids are given in insertion order but commit in another: a transaction may commit a lower id
 * after a higher one is seen. So the sweep only passes ids up to a horizon, the highest id seen
 * at least `graceMs` before (every transaction that had taken an id by then has committed since,
 * as none lasts that long), and takes the next horizon when it reaches one. A change is caught up
 * between one and two grace periods (plus a sweep interval) after its commit. The mark moves only
 * after a step's events are kept, from the value it was read at: two workers sweeping at once
 * repeat at most one step, whose events are kept once.
 */
export class StateChangeCatchUp {
  constructor(
    private readonly name: string,
    private readonly marks: EventCatchUpStore,
    private readonly history: MessageHistoryStore,
    private readonly graceMs: number,
    private readonly target: CatchUpTarget,
  ) {}

  /** Returns how many events were kept that had not been. */
  async round(): Promise<number> {
    const mark = await this.marks.get(this.name, this.graceMs);
    if (!mark) {
      // The first round: what came before is not owed by the catch-up.
      await this.marks.start(this.name, await this.history.lastId());
      return 0;
    }
    const horizon = mark.horizonId;
    if (horizon === null || BigInt(horizon) <= BigInt(mark.lastId)) {
      await this.marks.takeHorizon(this.name, await this.history.lastId());
      return 0;
    }
    if (!mark.horizonDue) return 0;
    const accounts = await this.target.accounts();
    let last = mark.lastId;
    let kept = 0;
    for (let step = 0; step < STEPS_PER_ROUND && BigInt(last) < BigInt(horizon); step++) {
      // With no account owed anything, no event is read: the mark goes to the horizon at once.
      const end = accounts.length ? await this.history.batchEnd(last, horizon, CATCH_UP_BATCH) : horizon;
      if (accounts.length) kept += await this.target.keep(await this.history.changesOf(accounts, last, end));
      if (!(await this.marks.advance(this.name, last, end))) return kept;
      last = end;
    }
    if (BigInt(last) >= BigInt(horizon)) await this.marks.takeHorizon(this.name, await this.history.lastId());
    return kept;
  }
}
