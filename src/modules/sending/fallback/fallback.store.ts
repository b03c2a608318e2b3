import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { MessageStatus } from '../../messages/channel.js';

/** A chat message whose fallback is due, with what its SMS is made of. */
export interface FallbackSource {
  id: string;
  uuid: string;
  status: MessageStatus;
  recipient: string;
  /** The chat text this recipient got (its own when personalised). */
  body: string;
  sender: string;
  account_id: string;
  api_key_id: string;
  test_mode: number;
  callback_url: string | null;
  priority: 'high' | 'normal';
  fallback_sender: string | null;
  fallback_body: string | null;
  /** 1 when its fallback SMS already exists. */
  made: number;
}

/**
 * The statements of chat-to-SMS fallbacks. messages.fallback_due_at holds what is due (its own
 * index keeps those rows alone); the fallback SMS names its chat message in fallback_of.
 */
@Injectable()
export class FallbackStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Claims due fallbacks: each is moved `leaseMs` ahead in one transaction (SKIP LOCKED: several
   * workers share the work, none takes a row another holds). A worker that dies before finishing
   * leaves its rows to fall due again when the lease ends; the SMS is then made at most once
   * (its fixed user_reference_id answers a repeat with the first answer, and fallback_of is unique).
   */
  async claimDue(now: Date, leaseMs: number, limit: number): Promise<string[]> {
    return this.ds.transaction(async (em) => {
      const rows = (await em.query(
        `SELECT id FROM messages FORCE INDEX (ix_messages_fallback_due)
          WHERE fallback_due_at <= ? ORDER BY fallback_due_at LIMIT ? FOR UPDATE SKIP LOCKED`,
        [now, limit],
      )) as Array<{ id: string }>;
      const ids = rows.map((r) => String(r.id));
      if (ids.length)
        await em.query('UPDATE messages SET fallback_due_at = ? WHERE id IN (?)', [
          new Date(now.getTime() + leaseMs),
          ids,
        ]);
      return ids;
    });
  }

  async sources(ids: string[]): Promise<FallbackSource[]> {
    if (ids.length === 0) return [];
    return (await this.ds.query(
      `SELECT m.id, m.uuid, m.status, m.recipient, COALESCE(m.body, r.body) AS body, r.sender, m.account_id,
              r.api_key_id, r.test_mode, r.callback_url, r.priority, r.fallback_sender, r.fallback_body,
              EXISTS (SELECT 1 FROM messages f WHERE f.fallback_of = m.id) AS made
         FROM messages m JOIN send_requests r ON r.id = m.send_request_id
        WHERE m.id IN (?) ORDER BY m.id`,
      [ids],
    )) as FallbackSource[];
  }

  /** Fallbacks made, or no longer needed. */
  async finish(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.ds.query('UPDATE messages SET fallback_due_at = NULL WHERE id IN (?)', [ids]);
  }

  /** When the next fallback falls due, if any (the scanner wakes then when it is before its next poll). */
  async nextDue(): Promise<Date | null> {
    const [row] = (await this.ds.query(
      'SELECT MIN(fallback_due_at) AS at FROM messages FORCE INDEX (ix_messages_fallback_due) WHERE fallback_due_at IS NOT NULL',
    )) as Array<{ at: Date | null }>;
    return row?.at ?? null;
  }
}
