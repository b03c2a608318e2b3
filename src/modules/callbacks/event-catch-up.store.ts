import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { NOTIFICATION_DB } from '../../database/data-sources.js';

/** Where a catch-up stands (ids of the main database's message_events). */
export interface CatchUpMark {
  /** The last event whose events owed are known kept. */
  lastId: string;
  /** The highest event seen when the horizon was taken; null when none is taken. */
  horizonId: string | null;
  /** True once the grace period has passed since the horizon was taken. */
  horizonDue: boolean;
}

/** Every statement on event_catch_up (notification database). */
@Injectable()
export class EventCatchUpStore {
  constructor(@InjectDataSource(NOTIFICATION_DB) private readonly notifications: DataSource) {}

  /** The catch-up's mark, its horizon due when taken at least `graceMs` ago; undefined before its first. */
  async get(name: string, graceMs: number): Promise<CatchUpMark | undefined> {
    const rows = (await this.notifications.query(
      `SELECT last_id, horizon_id,
              horizon_at <= CURRENT_TIMESTAMP(3) - INTERVAL ? MICROSECOND AS due
         FROM event_catch_up WHERE name = ?`,
      [graceMs * 1000, name],
    )) as Array<{ last_id: string; horizon_id: string | null; due: number | null }>;
    const r = rows[0];
    if (!r) return undefined;
    return {
      lastId: String(r.last_id),
      horizonId: r.horizon_id === null ? null : String(r.horizon_id),
      horizonDue: Number(r.due) === 1,
    };
  }

  /** Starts the catch-up after `lastId` (the events before it are not its business); a start already made stands. */
  async start(name: string, lastId: string): Promise<void> {
    await this.notifications.query('INSERT IGNORE INTO event_catch_up (name, last_id) VALUES (?, ?)', [
      name,
      lastId,
    ]);
  }

  /** A new horizon, unless one not yet reached stands (another process took it). */
  async takeHorizon(name: string, horizonId: string): Promise<void> {
    await this.notifications.query(
      `UPDATE event_catch_up SET horizon_id = ?, horizon_at = CURRENT_TIMESTAMP(3)
        WHERE name = ? AND (horizon_id IS NULL OR horizon_id <= last_id)`,
      [horizonId, name],
    );
  }

  /** Moves the mark from `fromId` to `toId`; false when another process moved it first. */
  async advance(name: string, fromId: string, toId: string): Promise<boolean> {
    const res = (await this.notifications.query(
      'UPDATE event_catch_up SET last_id = ? WHERE name = ? AND last_id = ?',
      [toId, name, fromId],
    )) as { affectedRows?: number };
    return res.affectedRows === 1;
  }
}
