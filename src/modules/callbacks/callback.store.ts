import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { againOnWriteConflict } from '../../database/conflict-retry.js';
import { NOTIFICATION_DB } from '../../database/data-sources.js';
import type { CallbackJob } from './callback-job.js';
import { outboxRecipient, recipientHash } from './outbox-recipient.js';
import { backfillRecipientHashes } from './recipient-hash.store.js';

/** Tries of a statement that a deadlock rolled back (whole: it changed nothing). */
const DEADLOCK_TRIES = 5;
/** Rows one statement puts back or forgets, each named by its primary key. */
const ROWS_PER_STATEMENT = 1000;

/** The ids a SELECT of `event_id` answered. */
const eventIds = (rows: unknown): string[] => (rows as Array<{ event_id: string }>).map((r) => r.event_id);

/** A kept event: its id and the job as queued (JSON). */
export interface OutboxRow {
  event_id: string;
  job: string;
}

/** One attempt at POSTing an event, as callback_attempts records it. */
export interface CallbackAttempt {
  eventId: string;
  eventType: string;
  messageRowId: string;
  accountId: string;
  url: string;
  attempt: number;
  outcome: string;
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
}

/** Every statement on callback_outbox and callback_attempts (notification database). */
@Injectable()
export class CallbackStore {
  constructor(
    @InjectDataSource(NOTIFICATION_DB) private readonly notifications: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Keeps the events, not yet queued; an event kept already stays as it is. A deadlock is tried
   * again: an event that is not kept lives on Redis alone, and goes if Redis loses its data
   * before the event is delivered.
   */
  async keep(jobs: CallbackJob[]): Promise<void> {
    if (jobs.length === 0) return;
    await this.againOnDeadlock(
      `INSERT IGNORE INTO callback_outbox (event_id, job, recipient_hash) VALUES ${jobs.map(() => '(?, ?, ?)').join(',')}`,
      jobs.flatMap((j) => [j.eventId, JSON.stringify(j), this.recipientHash(outboxRecipient(j))]),
    );
  }

  /**
   * Gives kept events their recipient hash: those without one (kept before the column existed, or
   * by a process of an older version), or, with `all`, every event (after SERVER_SECRET changed).
   * Returns how many rows were given one.
   */
  async hashRecipients(all: boolean): Promise<number> {
    return backfillRecipientHashes(this.notifications, 'callback_outbox', (r) => this.recipientHash(r), all);
  }

  /** What `callback_outbox.recipient_hash` holds for the events about `recipient`. */
  recipientHash(recipient: string): Buffer {
    return recipientHash(this.config.serverSecret, recipient);
  }

  /** Up to `limit` events kept but not queued, older than `olderThanMs`, oldest first. */
  async unqueued(olderThanMs: number, limit: number): Promise<OutboxRow[]> {
    return (await this.notifications.query(
      `SELECT event_id, job FROM callback_outbox
        WHERE queued_at IS NULL AND created_at < CURRENT_TIMESTAMP(3) - INTERVAL ? MICROSECOND ORDER BY queued_at, created_at LIMIT ?`,
      [olderThanMs * 1000, limit],
    )) as OutboxRow[];
  }

  async markQueued(ids: string[]): Promise<void> {
    await this.notifications.query(
      'UPDATE callback_outbox SET queued_at = CURRENT_TIMESTAMP(3) WHERE event_id IN (?)',
      [ids],
    );
  }

  /**
   * Every queued event back to not queued (the queue lost its data); returns how many. The rows
   * are read first, without locks, and changed by primary key: an UPDATE that searched the table
   * itself locked every row and gap it passed, and deadlocked with the keeps of new events.
   */
  async unmarkAllQueued(): Promise<number> {
    let changed = 0;
    // A thousand at a time in key order: a long outage can leave many queued.
    for (let after = ''; ;) {
      const ids = eventIds(
        await this.notifications.query(
          'SELECT event_id FROM callback_outbox WHERE event_id > ? AND queued_at IS NOT NULL ORDER BY event_id LIMIT ?',
          [after, ROWS_PER_STATEMENT],
        ),
      );
      if (ids.length === 0) return changed;
      const res = (await this.againOnDeadlock(
        'UPDATE callback_outbox SET queued_at = NULL WHERE event_id IN (?) AND queued_at IS NOT NULL',
        [ids],
      )) as { affectedRows?: number };
      changed += res.affectedRows ?? 0;
      after = ids[ids.length - 1]!;
    }
  }

  /** The events done with. */
  async remove(ids: string[]): Promise<void> {
    await this.notifications.query('DELETE FROM callback_outbox WHERE event_id IN (?)', [ids]);
  }

  /**
   * Up to 1000 leftover rows older than `hours`. Read first, without locks, and deleted by
   * primary key: a DELETE that searched the table itself (on every sweep round) locked every row
   * and gap it passed, and deadlocked with the keeps of new events.
   */
  async forgetOlderThan(hours: number): Promise<void> {
    const ids = eventIds(
      await this.notifications.query(
        'SELECT event_id FROM callback_outbox WHERE created_at < CURRENT_TIMESTAMP(3) - INTERVAL ? HOUR LIMIT ?',
        [hours, ROWS_PER_STATEMENT],
      ),
    );
    if (ids.length === 0) return;
    await this.notifications.query(
      'DELETE FROM callback_outbox WHERE event_id IN (?) AND created_at < CURRENT_TIMESTAMP(3) - INTERVAL ? HOUR',
      [ids, hours],
    );
  }

  /** One statement, again (up to DEADLOCK_TRIES in all) when a deadlock rolled it back. */
  private againOnDeadlock(sql: string, params: unknown[]): Promise<unknown> {
    return againOnWriteConflict(() => this.notifications.query(sql, params), DEADLOCK_TRIES);
  }

  async recordAttempt(a: CallbackAttempt): Promise<void> {
    await this.notifications.query(
      `INSERT INTO callback_attempts (event_id, event_type, message_id, account_id, url, attempt, outcome, http_status, error, duration_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        a.eventId,
        a.eventType,
        a.messageRowId,
        a.accountId,
        a.url.slice(0, 2048),
        a.attempt,
        a.outcome,
        a.httpStatus,
        a.error,
        a.durationMs,
      ],
    );
  }
}
