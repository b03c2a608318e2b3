import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { Statement } from '../../database/statement.js';

/** Whose keys: an account's live keys and its test keys keep apart (test and live data never mix). */
export interface KeyScope {
  accountId: string;
  testMode: boolean;
}

/** The first answer, as it was sent. */
export interface StoredAnswer {
  status: number;
  contentType: string | null;
  body: Buffer;
}

/** This request holds the key until it finishes (`token` proves it, should another take it over). */
export interface Claim {
  id: string;
  token: Buffer;
}

export type ClaimResult =
  | { kind: 'claimed'; claim: Claim }
  | { kind: 'replay'; answer: StoredAnswer }
  | { kind: 'other-body' }
  | { kind: 'in-progress' };

interface KeyRow {
  id: string;
  fingerprint: Buffer;
  status: number | null;
  content_type: string | null;
  body: Buffer | null;
  locked: number | null;
  expired: number;
}

const MYSQL_DUP = 1062;
/** A key is remembered this long after its first request. */
const KEEP_HOURS = 24;
/** Rows deleted per statement by the sweep. */
const SWEEP_CHUNK = 1000;
/** Attempts to claim a key whose row changes between two of our statements (released, expired, taken over). */
const CLAIM_ATTEMPTS = 4;

/** Every statement on idempotency_keys. Times are the database's (NOW(3)), so API processes agree whatever their clocks. */
@Injectable()
export class IdempotencyStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Takes the key for this request, or says why not. A new key is one INSERT; a key seen
   * before is read and, when it is free (expired, or its first attempt failed or was
   * abandoned: unlocked without an answer), taken over by a conditional UPDATE, so two
   * processes racing for it never both hold it.
   */
  async claim(scope: KeyScope, key: string, fingerprint: Buffer, leaseSeconds: number): Promise<ClaimResult> {
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      const token = randomBytes(16);
      const inserted = await this.insert(scope, key, fingerprint, token, leaseSeconds);
      if (inserted) return { kind: 'claimed', claim: { id: inserted, token } };
      const row = await this.find(scope, key);
      if (!row) continue; // released meanwhile: try the INSERT again
      if (row.expired) {
        if (await this.renew(row.id, fingerprint, token, leaseSeconds))
          return { kind: 'claimed', claim: { id: row.id, token } };
        continue;
      }
      if (!row.fingerprint.equals(fingerprint)) return { kind: 'other-body' };
      if (row.status != null)
        return {
          kind: 'replay',
          answer: { status: row.status, contentType: row.content_type, body: row.body ?? Buffer.alloc(0) },
        };
      if (row.locked) return { kind: 'in-progress' };
      if (await this.takeOver(row.id, token, leaseSeconds))
        return { kind: 'claimed', claim: { id: row.id, token } };
    }
    return { kind: 'in-progress' };
  }

  /** Keeps the answer for replays and unlocks the key; a no-op if another request took the key over. */
  async complete(claim: Claim, answer: StoredAnswer): Promise<void> {
    await this.ds.query(
      `UPDATE idempotency_keys SET status = ?, content_type = ?, body = ?, locked_until = NULL
        WHERE id = ? AND claim_token = ?`,
      [answer.status, answer.contentType, answer.body, claim.id, claim.token],
    );
  }

  /**
   * The request failed: the key is forgotten, so it can be used again (with this body or a
   * corrected one). A send that was stored under it all the same (its answer lost to a broken
   * connection) keeps the row, unlocked, so the next request with the key takes it over and
   * is answered with that send instead of making another.
   */
  async release(claim: Claim): Promise<void> {
    const deleted = (await this.ds.query(
      'DELETE FROM idempotency_keys WHERE id = ? AND claim_token = ? AND send_request_id IS NULL',
      [claim.id, claim.token],
    )) as { affectedRows: number };
    if (deleted.affectedRows === 1) return;
    await this.ds.query(
      'UPDATE idempotency_keys SET locked_until = NULL WHERE id = ? AND claim_token = ? AND status IS NULL',
      [claim.id, claim.token],
    );
  }

  /**
   * In the send's transaction: ties the send to its key (`linkSendStatement`); false when a send
   * is tied to it already. Returns the driver's promise with no step of its own on the send path.
   */
  linkSend(em: EntityManager, claimId: string, sendRequestId: string): Promise<boolean> {
    const s = linkSendStatement(claimId, sendRequestId);
    return em.query(s.sql, s.params).then((res: { affectedRows: number }) => res.affectedRows === 1);
  }

  /** The send already tied to a key, if any. */
  async linkedSend(claimId: string): Promise<string | null> {
    const rows = (await this.ds.query('SELECT send_request_id FROM idempotency_keys WHERE id = ?', [
      claimId,
    ])) as Array<{ send_request_id: string | null }>;
    return rows[0]?.send_request_id ?? null;
  }

  /** Deletes keys older than 24 h, a chunk at a time; returns how many. */
  async deleteExpired(): Promise<number> {
    let total = 0;
    for (;;) {
      const res = (await this.ds.query(
        'DELETE FROM idempotency_keys WHERE expires_at <= NOW(3) ORDER BY expires_at LIMIT ?',
        [SWEEP_CHUNK],
      )) as { affectedRows: number };
      total += res.affectedRows;
      if (res.affectedRows < SWEEP_CHUNK) return total;
    }
  }

  private async insert(
    scope: KeyScope,
    key: string,
    fingerprint: Buffer,
    token: Buffer,
    leaseSeconds: number,
  ): Promise<string | null> {
    try {
      const res = (await this.ds.query(
        `INSERT INTO idempotency_keys
           (account_id, test_mode, idempotency_key, fingerprint, claim_token, locked_until, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, NOW(3) + INTERVAL ? SECOND, NOW(3), NOW(3) + INTERVAL ${KEEP_HOURS} HOUR)`,
        [scope.accountId, scope.testMode ? 1 : 0, key, fingerprint, token, leaseSeconds],
      )) as { insertId: number | string };
      return String(res.insertId);
    } catch (err) {
      if ((err as { errno?: number }).errno === MYSQL_DUP) return null;
      throw err;
    }
  }

  private async find(scope: KeyScope, key: string): Promise<KeyRow | undefined> {
    const rows = (await this.ds.query(
      `SELECT id, fingerprint, status, content_type, body, locked_until > NOW(3) AS locked,
              expires_at <= NOW(3) AS expired
         FROM idempotency_keys WHERE account_id = ? AND test_mode = ? AND idempotency_key = ?`,
      [scope.accountId, scope.testMode ? 1 : 0, key],
    )) as KeyRow[];
    return rows[0];
  }

  /** A key past its 24 h starts afresh: nothing of its first use is kept. */
  private async renew(
    id: string,
    fingerprint: Buffer,
    token: Buffer,
    leaseSeconds: number,
  ): Promise<boolean> {
    const res = (await this.ds.query(
      `UPDATE idempotency_keys
          SET fingerprint = ?, claim_token = ?, locked_until = NOW(3) + INTERVAL ? SECOND, send_request_id = NULL,
              status = NULL, content_type = NULL, body = NULL, created_at = NOW(3),
              expires_at = NOW(3) + INTERVAL ${KEEP_HOURS} HOUR
        WHERE id = ? AND expires_at <= NOW(3)`,
      [fingerprint, token, leaseSeconds, id],
    )) as { affectedRows: number };
    return res.affectedRows === 1;
  }

  /** A key with no answer and no live holder: its send link, if any, is kept. */
  private async takeOver(id: string, token: Buffer, leaseSeconds: number): Promise<boolean> {
    const res = (await this.ds.query(
      `UPDATE idempotency_keys SET claim_token = ?, locked_until = NOW(3) + INTERVAL ? SECOND
        WHERE id = ? AND status IS NULL AND (locked_until IS NULL OR locked_until <= NOW(3))`,
      [token, leaseSeconds, id],
    )) as { affectedRows: number };
    return res.affectedRows === 1;
  }
}

/**
 * The statement a send's transaction runs to tie the send to its key: it changes one row only
 * if no send is tied to the key yet, so of two attempts under one key (a retry that took the
 * key over from a request that seemed dead but was not) one commits and the other sees 0 rows.
 */
export function linkSendStatement(claimId: string, sendRequestId: string): Statement {
  return {
    sql: 'UPDATE idempotency_keys SET send_request_id = ? WHERE id = ? AND send_request_id IS NULL',
    params: [sendRequestId, claimId],
  };
}
