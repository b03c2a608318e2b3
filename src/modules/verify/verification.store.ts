import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { together, type Statement } from '../../database/statement.js';
import type { Channel } from '../messages/channel.js';
import type { Conversion } from '../fraud/pumping/pumping-rules.js';

export type VerificationStatus = 'pending' | 'approved' | 'max_attempts_reached' | 'expired' | 'canceled';

export interface VerificationRow {
  id: string;
  account_id: string;
  test_mode: number;
  channel: Channel;
  recipient: string;
  country: string;
  code_hash: Buffer;
  status: VerificationStatus;
  attempts: number;
  message_id: string | null;
  public_message_id: string | null;
  expires_at: Date;
  created_at: Date;
  closed_at: Date | null;
}

/** Whose verifications: one side (live or test) of one account. */
export interface VerificationOwner {
  accountId: string;
  testMode: boolean;
}

export interface NewVerification {
  id: string;
  channel: Channel;
  recipient: string;
  country: string;
  codeHash: Buffer;
  expiresAt: Date;
  createdAt: Date;
  /** The code's message (and the text it keeps once handed over); absent only in tests. */
  message?: { id: string; publicId: string; maskedBody: string };
}

/** What an outcome is told from (VerificationOutcomes): what a check reads back. */
export type VerificationOutcome = Pick<
  VerificationRow,
  | 'id'
  | 'account_id'
  | 'test_mode'
  | 'channel'
  | 'recipient'
  | 'country'
  | 'status'
  | 'attempts'
  | 'closed_at'
>;

/** A verification as a change left it; `moved`: it was pending, and this change applied. */
export type Moved<R = VerificationRow> = { moved: boolean; row: R } | undefined;

const COLUMNS = `id, account_id, test_mode, channel, recipient, country, code_hash, status, attempts,
  message_id, public_message_id, expires_at, created_at, closed_at`;
const OUTCOME_COLUMNS = 'id, account_id, test_mode, channel, recipient, country, status, attempts, closed_at';
const OWNED = 'account_id = ? AND test_mode = ?';
const PAST_ITS_END = ' AND expires_at <= ?';
const owned = (o: VerificationOwner) => [o.accountId, o.testMode ? 1 : 0];
const BEGIN: Statement = { sql: 'START TRANSACTION', params: [] };
const COMMIT: Statement = { sql: 'COMMIT', params: [] };

/**
 * The INSERT of a new verification with its code's message: for the send's own transaction, so
 * the message and the verification that can mask its text are stored together or not at all.
 */
export function verificationInsert(o: VerificationOwner, v: NewVerification): Statement {
  return {
    sql: `INSERT INTO verifications (id, account_id, test_mode, channel, recipient, country, code_hash,
            message_id, public_message_id, masked_body, expires_at, created_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    params: [
      v.id,
      ...owned(o),
      v.channel,
      v.recipient,
      v.country,
      v.codeHash,
      v.message?.id ?? null,
      v.message?.publicId ?? null,
      v.message?.maskedBody ?? null,
      v.expiresAt,
      v.createdAt,
    ],
  };
}

/** The pending verifications to `recipient`, newest first: what keepNewest closes all but the first of. */
export function pendingTo(o: VerificationOwner, recipient: string): Statement {
  return {
    sql: `SELECT ${OUTCOME_COLUMNS} FROM verifications WHERE ${OWNED} AND recipient = ? AND status = 'pending' ORDER BY seq DESC`,
    params: [...owned(o), recipient],
  };
}

/** Every statement on the verifications table. */
@Injectable()
export class VerificationStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async insert(o: VerificationOwner, v: NewVerification): Promise<void> {
    const { sql, params } = verificationInsert(o, v);
    await this.ds.query(sql, params);
  }

  /**
   * Closes every pending verification to `recipient` but the newest as `canceled`, answering
   * those it closed: the old code stops working once a new one is stored. Called after a start's
   * send has committed, so of two starts at once the one to commit last sees both, whichever
   * got the newer row. Each is closed by a statement of its own, on its primary key, so starts to
   * one number at once take no range locks (they cannot deadlock) and the newest start's code is
   * the one left working. `pending`: the rows of `pendingTo` if they were read after the commit
   * already (with the send's COMMIT), else they are read here.
   */
  async keepNewest(
    o: VerificationOwner,
    recipient: string,
    at: Date,
    pending?: VerificationOutcome[],
  ): Promise<VerificationOutcome[]> {
    if (!pending) {
      const { sql, params } = pendingTo(o, recipient);
      pending = (await this.ds.query(sql, params)) as VerificationOutcome[];
    }
    const replaced: VerificationOutcome[] = [];
    for (const v of pending.slice(1)) {
      const r = (await this.ds.query(
        `UPDATE verifications SET status = 'canceled', closed_at = ? WHERE id = ? AND status = 'pending'`,
        [at, v.id],
      )) as { affectedRows: number };
      if (r.affectedRows === 1) replaced.push({ ...v, status: 'canceled', closed_at: at });
    }
    return replaced;
  }

  async find(o: VerificationOwner, id: string): Promise<VerificationRow | undefined> {
    const [row] = (await this.ds.query(`SELECT ${COLUMNS} FROM verifications WHERE ${OWNED} AND id = ?`, [
      ...owned(o),
      id,
    ])) as VerificationRow[];
    return row;
  }

  /**
   * A check of `digest` (the code entered, digested as the stored one is): on a pending
   * verification, closes it `expired` past its end, else `approved` when the digests are equal,
   * else counts the attempt, closing it `max_attempts_reached` at the `maxAttempts`-th. The
   * decision is the UPDATE's own, so two checks at once never both use the same attempt.
   */
  check(
    o: VerificationOwner,
    id: string,
    digest: Buffer,
    maxAttempts: number,
    at: Date,
  ): Promise<Moved<VerificationOutcome>> {
    // The time, the digest and the limit as session variables, each sent once rather than as the
    // nine parameters they would be. Each assignment reads only columns none before it writes:
    // attempts, the one that reads and writes the same column, comes last.
    return this.moveOn(
      OUTCOME_COLUMNS,
      o,
      id,
      `closed_at = IF(expires_at <= @at OR code_hash = @code OR attempts + 1 >= @max, @at, NULL),
       status = CASE WHEN expires_at <= @at THEN 'expired' WHEN code_hash = @code THEN 'approved'
                     WHEN attempts + 1 >= @max THEN 'max_attempts_reached' ELSE 'pending' END,
       attempts = IF(expires_at <= @at OR code_hash = @code, attempts, attempts + 1)`,
      [],
      '',
      [],
      { sql: 'SET @at = ?, @code = ?, @max = ?', params: [at, digest, maxAttempts] },
    );
  }

  /** Closes a pending verification `canceled`, or `expired` when past its end. */
  cancel(o: VerificationOwner, id: string, at: Date): Promise<Moved> {
    return this.moveOn(COLUMNS, o, id, `closed_at = ?, status = IF(expires_at <= ?, 'expired', 'canceled')`, [
      at,
      at,
    ]);
  }

  /** Closes a pending verification past its end `expired`; one still running is left as it is. */
  expireIfDue(o: VerificationOwner, id: string, at: Date): Promise<Moved> {
    return this.moveOn(COLUMNS, o, id, `closed_at = ?, status = 'expired'`, [at], PAST_ITS_END, [at]);
  }

  /**
   * Applies `assignments` to the verification if it is pending (and `also` holds), and reads its
   * `columns` as it then is, in one
   * transaction and one round trip: `moved` says whether it was pending (this call moved it on,
   * under its row lock, and no other). Undefined: no such verification on this side.
   */
  private async moveOn<R>(
    columns: string,
    o: VerificationOwner,
    id: string,
    assignments: string,
    params: unknown[],
    also = '',
    alsoParams: unknown[] = [],
    before?: Statement,
  ): Promise<Moved<R>> {
    const [update, rows] = (
      await this.inOneTrip([
        ...(before ? [before] : []),
        {
          sql: `UPDATE verifications SET ${assignments} WHERE ${OWNED} AND id = ? AND status = 'pending'${also}`,
          params: [...params, ...owned(o), id, ...alsoParams],
        },
        { sql: `SELECT ${columns} FROM verifications WHERE ${OWNED} AND id = ?`, params: [...owned(o), id] },
      ])
    ).slice(before ? 1 : 0) as [{ affectedRows: number }, R[]];
    const row = rows[0];
    return row && { moved: update.affectedRows === 1, row };
  }

  /** Pending verifications past their end, oldest first, for the expiry sweep. */
  async due(now: Date, limit: number): Promise<VerificationRow[]> {
    return (await this.ds.query(
      `SELECT ${COLUMNS} FROM verifications WHERE status = 'pending' AND expires_at <= ? ORDER BY expires_at LIMIT ?`,
      [now, limit],
    )) as VerificationRow[];
  }

  /** Closes one as expired; false when another process (a check, another sweep) closed it first. */
  async expire(id: string, at: Date): Promise<boolean> {
    const r = (await this.ds.query(
      `UPDATE verifications SET status = 'expired', closed_at = ? WHERE id = ? AND status = 'pending'`,
      [at, id],
    )) as { affectedRows: number };
    return r.affectedRows === 1;
  }

  /**
   * A country's latest decided verifications (closed, or pending past their end: a code never
   * entered), newest first, up to `sample`: how many and how many approved.
   */
  async conversion(o: VerificationOwner, country: string, now: Date, sample: number): Promise<Conversion> {
    const [row] = (await this.ds.query(
      `SELECT COUNT(*) AS decided, COALESCE(SUM(status = 'approved'), 0) AS approved FROM (
         SELECT status FROM verifications
          WHERE ${OWNED} AND country = ? AND (status <> 'pending' OR expires_at <= ?)
          ORDER BY seq DESC LIMIT ?) latest`,
      [...owned(o), country, now, sample],
    )) as Array<{ decided: string | number; approved: string | number }>;
    return { decided: Number(row?.decided ?? 0), approved: Number(row?.approved ?? 0) };
  }

  /** The verifications of these messages whose stored text still holds the code. */
  async unmasked(
    messageIds: string[],
  ): Promise<Array<{ id: string; message_id: string; masked_body: string }>> {
    if (messageIds.length === 0) return [];
    return (await this.ds.query(
      `SELECT id, message_id, masked_body FROM verifications
        WHERE message_id IN (?) AND masked_at IS NULL AND masked_body IS NOT NULL`,
      [messageIds],
    )) as Array<{ id: string; message_id: string; masked_body: string }>;
  }

  /** Verifications attached over `olderThan` ago whose message text was never masked (a listener call lost). */
  async unmaskedBefore(olderThan: Date, limit: number): Promise<string[]> {
    const rows = (await this.ds.query(
      `SELECT message_id FROM verifications
        WHERE masked_at IS NULL AND message_id IS NOT NULL AND created_at < ? ORDER BY created_at LIMIT ?`,
      [olderThan, limit],
    )) as Array<{ message_id: string }>;
    return rows.map((r) => String(r.message_id));
  }

  async markMasked(ids: string[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.ds.query('UPDATE verifications SET masked_at = ? WHERE id IN (?)', [at, ids]);
  }

  /**
   * The statements in one transaction and one round trip: START TRANSACTION, each of them and
   * COMMIT as one multi-statement query; answers each one's result, in order. When one fails,
   * those after it are not run: the transaction is rolled back before its connection goes back
   * to the pool, and the error thrown.
   */
  private async inOneTrip(statements: Statement[]): Promise<unknown[]> {
    const all = together([BEGIN, ...statements, COMMIT]);
    const runner = this.ds.createQueryRunner();
    try {
      return ((await runner.query(all.sql, all.params)) as unknown[]).slice(1, -1);
    } catch (err) {
      await runner.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      await runner.release();
    }
  }
}
