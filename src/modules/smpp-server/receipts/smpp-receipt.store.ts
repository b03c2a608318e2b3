import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { OutboxPdu } from './receipt-pdu.js';

/** A deliver_sm to write for one credential. */
export interface NewOutboxRow {
  credentialId: number;
  /** The message a receipt is for; null for an inbound SMS. */
  messageId: string | null;
  pdu: OutboxPdu;
}

/** An inbound SMS for every live credential of its account (and mode). */
export interface NewInboundRow {
  accountId: string;
  testMode: boolean;
  pdu: OutboxPdu;
}

/** A row claimed for sending. */
export interface ClaimedRow {
  id: string;
  credentialId: number;
  attempts: number;
  pdu: OutboxPdu;
}

interface RawClaimed {
  id: string;
  credential_id: number;
  attempts: number;
  pdu: string;
}

/** Every statement on smpp_receipts (main database). */
@Injectable()
export class SmppReceiptStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** One multi-row INSERT for a batch of state changes. */
  async add(rows: NewOutboxRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.ds.query(
      `INSERT INTO smpp_receipts (credential_id, message_id, pdu) VALUES ${rows.map(() => '(?, ?, ?)').join(',')}`,
      rows.flatMap((r) => [r.credentialId, r.messageId, JSON.stringify(r.pdu)]),
    );
  }

  /**
   * In the transaction that stores the inbound messages: one row per credential of the account
   * that is not revoked and has the message's mode (a test recipient's reply goes to test binds).
   */
  async addInbound(em: EntityManager, rows: NewInboundRow[]): Promise<void> {
    for (const r of rows)
      await em.query(
        `INSERT INTO smpp_receipts (credential_id, pdu)
         SELECT id, ? FROM smpp_credentials WHERE account_id = ? AND mode = ? AND revoked_at IS NULL`,
        [JSON.stringify(r.pdu), r.accountId, r.testMode ? 'test' : 'live'],
      );
  }

  /**
   * Leases up to `limit` due rows of these credentials to `claimant` for `leaseMs`: a row leased
   * to a process is sent by no other until the lease ends (its sender died, or never answered).
   */
  async claim(
    credentialIds: number[],
    claimant: string,
    leaseMs: number,
    limit: number,
  ): Promise<ClaimedRow[]> {
    if (credentialIds.length === 0) return [];
    const [, rows] = (await this.ds.query(
      `UPDATE smpp_receipts
          SET claimed_by = ?, claimed_until = CURRENT_TIMESTAMP(3) + INTERVAL ? MICROSECOND, attempts = attempts + 1
        WHERE credential_id IN (?) AND next_attempt_at <= CURRENT_TIMESTAMP(3)
          AND (claimed_until IS NULL OR claimed_until < CURRENT_TIMESTAMP(3))
        ORDER BY id LIMIT ?;
       SELECT id, credential_id, attempts, pdu FROM smpp_receipts WHERE claimed_by = ? ORDER BY id`,
      [claimant, leaseMs * 1000, credentialIds, limit, claimant],
    )) as [unknown, RawClaimed[]];
    return rows.map((r) => ({
      id: String(r.id),
      credentialId: Number(r.credential_id),
      attempts: Number(r.attempts),
      pdu: JSON.parse(r.pdu) as OutboxPdu,
    }));
  }

  /** Answered, or given up: the rows go. */
  async remove(ids: string[]): Promise<void> {
    if (ids.length) await this.ds.query('DELETE FROM smpp_receipts WHERE id IN (?)', [ids]);
  }

  /** Tried again after `delayMs` (0: released to the next claim at once), by any process. */
  async retryLater(ids: string[], delayMs: number): Promise<void> {
    if (ids.length === 0) return;
    await this.ds.query(
      `UPDATE smpp_receipts SET claimed_by = NULL, claimed_until = NULL,
              next_attempt_at = CURRENT_TIMESTAMP(3) + INTERVAL ? MICROSECOND WHERE id IN (?)`,
      [delayMs * 1000, ids],
    );
  }

  /** Deletes rows kept longer than `hours` (never answered); returns how many. */
  async expire(hours: number, limit = 10_000): Promise<number> {
    const res = (await this.ds.query(
      'DELETE FROM smpp_receipts WHERE created_at < CURRENT_TIMESTAMP(3) - INTERVAL ? HOUR ORDER BY created_at LIMIT ?',
      [hours, limit],
    )) as { affectedRows?: number };
    return res.affectedRows ?? 0;
  }

  /** How many wait, and how old the oldest is (seconds; 0 when none). */
  async waiting(): Promise<{ count: number; oldestSeconds: number }> {
    const [row] = (await this.ds.query(
      `SELECT COUNT(*) AS n, COALESCE(TIMESTAMPDIFF(MICROSECOND, MIN(created_at), CURRENT_TIMESTAMP(3)), 0) / 1e6 AS age
         FROM smpp_receipts`,
    )) as Array<{ n: string | number; age: string | number }>;
    return { count: Number(row?.n ?? 0), oldestSeconds: Math.max(0, Number(row?.age ?? 0)) };
  }
}
