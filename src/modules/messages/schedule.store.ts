import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Channel } from './channel.js';

/** A request released by the due scanner: its SCHEDULED messages are now ACKNOWLEDGED. */
/**
 * What decides whether a request's messages may be handed over: its validity deadline (NULL for
 * requests stored before validity existed) and whether a cancel of it was asked.
 */
export interface HandOverGate {
  valid_until: Date | null;
  cancel_requested_at: Date | null;
}

export interface ReleasedRequest {
  id: string;
  channel: Channel;
  /** Made with a test key: its jobs go to the test queue. */
  test: boolean;
  /** A live high-priority request's jobs go to the priority queue. */
  priority: 'high' | 'normal';
}

/** A message a cancel or an expiry may end, with what refunding it gives back. */
export interface Cancellable {
  id: string;
  cost: string;
}

export interface OwnedRequest {
  id: string;
  channel: Channel;
  currency: string;
  accepted_count: number;
  created_at: Date;
  send_at: Date | null;
  validity_period: number | null;
  /** Its own send window as JSON text; null: it keeps the account's. */
  send_window: string | null;
}

/** A message still SCHEDULED, as a reschedule places it. */
export interface WaitingRecipient {
  id: string;
  recipient: string;
}

/** How many ids an UPDATE … WHERE id IN (?) of a reschedule names at most. */
const UPDATE_CHUNK = 5000;

/**
 * When the due scanner is next to look at request r: its first release among its messages still
 * SCHEDULED (a message's own send_at, else the request's), a message whose window opens after
 * the validity ends counting at that end (it is released then, to expire); NULL when none waits.
 */
const FIRST_RELEASE = `(SELECT MIN(LEAST(COALESCE(m.send_at, r.send_at), COALESCE(r.valid_until, m.send_at, r.send_at)))
                         FROM messages m FORCE INDEX (ix_messages_status_sent_request)
                        WHERE m.status = 'SCHEDULED' AND m.sent_at IS NULL AND m.send_request_id = r.id)`;

/**
 * The statements of scheduling, validity and cancellation on send_requests and messages. The
 * schedule lives in MySQL: send_requests.due_at is set while a request's messages wait for
 * send_at, and only the rows where it is set are in its index.
 */
@Injectable()
export class ScheduleStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Releases due requests in one transaction: their SCHEDULED messages become ACKNOWLEDGED (with
   * a history row each) and the request leaves the schedule. SKIP LOCKED lets several workers
   * scan at once, each taking other requests; a request is released by exactly one of them.
   * Requests are taken until about `maxMessages` messages (at least one request).
   */
  async releaseDue(now: Date, maxRequests: number, maxMessages: number): Promise<ReleasedRequest[]> {
    return this.ds.transaction(async (em) => {
      const due = (await em.query(
        `SELECT id, channel, accepted_count, test_mode, priority FROM send_requests FORCE INDEX (ix_send_requests_due)
          WHERE due_at <= ? ORDER BY due_at LIMIT ? FOR UPDATE SKIP LOCKED`,
        [now, maxRequests],
      )) as Array<{
        id: string;
        channel: Channel;
        accepted_count: number;
        test_mode: number;
        priority: 'high' | 'normal';
      }>;
      const taken: typeof due = [];
      let messages = 0;
      for (const r of due) {
        if (taken.length > 0 && messages + r.accepted_count > maxMessages) break;
        taken.push(r);
        messages += r.accepted_count;
      }
      if (taken.length === 0) return [];
      const ids = taken.map((r) => String(r.id));
      // Due now: the request's own (send_at passed) and those whose window opened; one whose
      // window opens after its validity ends is released at that end, to expire.
      await em.query(
        `INSERT INTO message_events (message_id, status, reason, occurred_at)
         SELECT m.id, 'ACKNOWLEDGED', NULL, ? FROM messages m JOIN send_requests r ON r.id = m.send_request_id
          WHERE m.send_request_id IN (?) AND m.status = 'SCHEDULED'
            AND (m.send_at IS NULL OR m.send_at <= ? OR r.valid_until <= ?)`,
        [now, ids, now, now],
      );
      await em.query(
        `UPDATE messages m JOIN send_requests r ON r.id = m.send_request_id SET m.status = 'ACKNOWLEDGED'
          WHERE m.send_request_id IN (?) AND m.status = 'SCHEDULED'
            AND (m.send_at IS NULL OR m.send_at <= ? OR r.valid_until <= ?)`,
        [ids, now, now],
      );
      // Marked enqueued now: the caller queues them at once, and if Redis does not take the jobs
      // the recovery sweep finds them as it finds any lost job (after its quiet period). Messages
      // still waiting for their window keep the request on the schedule, due at the next one.
      await em.query(
        `UPDATE send_requests r SET enqueued_at = ?, due_at = ${FIRST_RELEASE} WHERE r.id IN (?)`,
        [now, ids],
      );
      return taken.map((r) => ({
        id: String(r.id),
        channel: r.channel,
        test: Boolean(r.test_mode),
        priority: r.priority,
      }));
    });
  }

  /** When the next scheduled request is due, if any. */
  async nextDue(): Promise<Date | null> {
    const [row] = (await this.ds.query(
      'SELECT MIN(due_at) AS at FROM send_requests FORCE INDEX (ix_send_requests_due) WHERE due_at IS NOT NULL',
    )) as Array<{ at: Date | null }>;
    return row?.at ?? null;
  }

  // ------------------------------------------------------------------ hand-over claims

  /**
   * Claims messages for hand-over, if their request is neither being cancelled nor past its
   * validity at `now`: of the given ones (of the given requests), those still ACKNOWLEDGED are
   * stamped claimed_at, each under its row lock. A cancel or an expiry that locked them first has
   * already changed their state; one that comes after sees the claim and leaves them alone. One
   * round trip answers each request's gate (to tell a cancel from an expiry) and how many rows the
   * claim took; only when it took fewer than given does a second read say which (claimed_at =
   * now, still ACKNOWLEDGED). By primary key: MariaDB would otherwise range over the status
   * index, locking every waiting message of every request it passes.
   */
  async claim(
    sendRequestIds: string[],
    ids: string[],
    now: Date,
  ): Promise<{ gates: Map<string, HandOverGate>; claimed: string[] }> {
    const gates = new Map<string, HandOverGate>();
    if (ids.length === 0) return { gates, claimed: [] };
    const [rows, update] = (await this.ds.query(
      `SELECT id, valid_until, cancel_requested_at FROM send_requests WHERE id IN (?);
       UPDATE messages FORCE INDEX (PRIMARY) SET claimed_at = ?
        WHERE id IN (?) AND status = 'ACKNOWLEDGED'
          AND EXISTS (SELECT 1 FROM send_requests r WHERE r.id = messages.send_request_id
                        AND r.cancel_requested_at IS NULL AND (r.valid_until IS NULL OR r.valid_until > ?))`,
      [sendRequestIds, now, ids, now],
    )) as [Array<HandOverGate & { id: string }>, { affectedRows: number }];
    for (const { id, ...gate } of rows) gates.set(String(id), gate);
    if (update.affectedRows === 0) return { gates, claimed: [] };
    if (update.affectedRows === ids.length) return { gates, claimed: ids };
    const taken = (await this.ds.query(
      "SELECT id FROM messages WHERE id IN (?) AND status = 'ACKNOWLEDGED' AND claimed_at = ?",
      [ids, now],
    )) as Array<{ id: string }>;
    return { gates, claimed: taken.map((r) => String(r.id)) };
  }

  /** Gives up claims on messages a hand-over left waiting (to be retried): a cancel may take them again. */
  async unclaim(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.ds.query("UPDATE messages SET claimed_at = NULL WHERE id IN (?) AND status = 'ACKNOWLEDGED'", [
      ids,
    ]);
  }

  /** Asks for the request to be cancelled: workers start no new hand-over of its messages. */
  async requestCancel(sendRequestId: string, at: Date): Promise<void> {
    await this.ds.query(
      'UPDATE send_requests SET cancel_requested_at = COALESCE(cancel_requested_at, ?) WHERE id = ?',
      [at, sendRequestId],
    );
  }

  /**
   * Messages left waiting by a cancel that did not finish (its process died): of requests whose
   * cancel was asked before `askedBefore`, those still ACKNOWLEDGED and not being handed over.
   */
  async findUnfinishedCancels(
    askedBefore: Date,
    claimStaleBefore: Date,
    limit: number,
  ): Promise<Cancellable[]> {
    return (await this.ds.query(
      `SELECT m.id, m.cost FROM messages m FORCE INDEX (ix_messages_status_sent_request)
         JOIN send_requests r ON r.id = m.send_request_id
        WHERE m.status = 'ACKNOWLEDGED' AND m.sent_at IS NULL AND r.cancel_requested_at < ?
          AND (m.claimed_at IS NULL OR m.claimed_at < ?)
        LIMIT ?`,
      [askedBefore, claimStaleBefore, limit],
    )) as Cancellable[];
  }

  // ------------------------------------------------------------------ validity

  /**
   * Messages still waiting to be handed over whose request's validity has elapsed, not being
   * handed over (no claim, or one older than `claimStaleBefore`). Reached through the status
   * index, which holds few ACKNOWLEDGED rows.
   */
  async findOutOfValidity(now: Date, claimStaleBefore: Date, limit: number): Promise<Cancellable[]> {
    return (await this.ds.query(
      `SELECT m.id, m.cost FROM messages m FORCE INDEX (ix_messages_status_sent_request)
         JOIN send_requests r ON r.id = m.send_request_id
        WHERE m.status = 'ACKNOWLEDGED' AND m.sent_at IS NULL AND r.valid_until < ?
          AND (m.claimed_at IS NULL OR m.claimed_at < ?)
        LIMIT ?`,
      [now, claimStaleBefore, limit],
    )) as Cancellable[];
  }

  // ------------------------------------------------------------------ cancel and reschedule

  /** A request of one side (live or test) of one account: a key never reaches the other side's requests. */
  async findOwnedRequest(
    accountId: string,
    sendRequestId: string,
    testMode: boolean,
  ): Promise<OwnedRequest | undefined> {
    const [row] = (await this.ds.query(
      `SELECT id, channel, currency, accepted_count, created_at, send_at, validity_period, send_window
         FROM send_requests WHERE id = ? AND account_id = ? AND test_mode = ?`,
      [sendRequestId, accountId, testMode ? 1 : 0],
    )) as OwnedRequest[];
    return row;
  }

  /** A request's messages not yet handed over (SCHEDULED or ACKNOWLEDGED), in id order. */
  async findWaitingOf(sendRequestId: string): Promise<Cancellable[]> {
    return (await this.ds.query(
      `SELECT id, cost FROM messages WHERE send_request_id = ? AND status IN ('SCHEDULED', 'ACKNOWLEDGED')
        ORDER BY id`,
      [sendRequestId],
    )) as Cancellable[];
  }

  /**
   * Moves a request's schedule if some of its messages are still SCHEDULED; returns how many
   * are. `place` gives each of them its own release time (the next opening of a window closed at
   * the new send_at), or null to go at the request's send_at. A chat message's pending fallback
   * falls due `fallback_after_seconds` after its new time, and the request is due at its first
   * release. The request row is locked first, as the due scanner locks it, so a reschedule and a
   * release of the same request happen one after the other.
   */
  async reschedule(
    sendRequestId: string,
    change: { sendAt: Date; validUntil: Date },
    place: (waiting: WaitingRecipient[]) => Array<Date | null>,
  ): Promise<number> {
    return this.ds.transaction(async (em) => {
      const [request] = (await em.query(
        'SELECT fallback_after_seconds FROM send_requests WHERE id = ? FOR UPDATE',
        [sendRequestId],
      )) as Array<{ fallback_after_seconds: number | null }>;
      const waiting = (await em.query(
        "SELECT id, recipient FROM messages WHERE send_request_id = ? AND status = 'SCHEDULED' ORDER BY id",
        [sendRequestId],
      )) as WaitingRecipient[];
      if (waiting.length === 0) return 0;
      const times = place(waiting);
      // Few distinct times (one per time zone at most): one UPDATE per time and chunk of ids.
      const byTime = new Map<number | null, string[]>();
      waiting.forEach((w, i) => {
        const at = times[i]?.getTime() ?? null;
        const ids = byTime.get(at);
        if (ids) ids.push(String(w.id));
        else byTime.set(at, [String(w.id)]);
      });
      const afterMs = request?.fallback_after_seconds == null ? null : request.fallback_after_seconds * 1000;
      for (const [at, ids] of byTime) {
        const goes = at ?? change.sendAt.getTime();
        const fallbackDue = afterMs === null ? null : new Date(goes + afterMs);
        for (let i = 0; i < ids.length; i += UPDATE_CHUNK)
          await em.query(
            `UPDATE messages SET send_at = ?, fallback_due_at = IF(fallback_due_at IS NULL, NULL, ?)
              WHERE id IN (?) AND status = 'SCHEDULED'`,
            [at === null ? null : new Date(at), fallbackDue, ids.slice(i, i + UPDATE_CHUNK)],
          );
      }
      await em.query('UPDATE send_requests SET send_at = ?, valid_until = ? WHERE id = ?', [
        change.sendAt,
        change.validUntil,
        sendRequestId,
      ]);
      await em.query(`UPDATE send_requests r SET due_at = ${FIRST_RELEASE} WHERE r.id = ?`, [sendRequestId]);
      return waiting.length;
    });
  }
}
