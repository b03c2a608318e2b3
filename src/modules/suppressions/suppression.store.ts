import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { CHANNELS, type Channel } from '../messages/channel.js';

/** Why a recipient is on an account's suppression list. */
export type SuppressionReason = 'MANUAL' | 'STOP_KEYWORD' | 'UNSUBSCRIBE' | 'BOUNCE';

/**
 * Reasons that record what the recipient (a STOP) or the recipient's mail server (a bounce) did:
 * through the API a tenant can neither create nor lift them; only the recipient (START) or an
 * operator with the CLI can.
 */
export const RECIPIENT_REASONS: readonly SuppressionReason[] = ['STOP_KEYWORD', 'BOUNCE'];
export const SUPPRESSION_REASONS: readonly SuppressionReason[] = [
  'MANUAL',
  'STOP_KEYWORD',
  'UNSUBSCRIBE',
  'BOUNCE',
];

export interface SuppressionRow {
  recipient: string;
  channel: Channel;
  reason: SuppressionReason;
  created_at: Date;
}

/** Recipients looked up in one statement when a send is checked against the list. */
export const SUPPRESSION_CHUNK = 1000;
/** Chunks of one request looked up at the same time. */
const SUPPRESSION_CHUNKS_AT_ONCE = 4;

type Runner = DataSource | EntityManager;

/** The rows of some recipients on one side of one account's list for one channel. */
const LISTED = 'account_id = ? AND test_mode = ? AND channel = ? AND recipient IN (?)';
/** LISTED as one term of an OR: MariaDB reads each term as primary-key ranges (a row-constructor IN is not). */
const LISTED_TERM = '(account_id = ? AND test_mode = ? AND channel = ? AND recipient IN (?))';

/** The recipients one send asks about. */
export interface SuppressionLookup {
  owner: ListOwner;
  channel: Channel;
  recipients: string[];
}

/** Whose list: an account's live side, or its test side (what its test keys see and send against). */
export interface ListOwner {
  accountId: string;
  testMode: boolean;
}

const INSERT = 'INSERT IGNORE INTO suppressions (account_id, test_mode, channel, recipient, reason) VALUES';

/** All SQL on the suppression list: per account and channel, one row per recipient. */
@Injectable()
export class SuppressionStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Adds recipients (already normalised); a recipient already listed keeps its first reason. Answers how many were new. */
  async add(
    owner: ListOwner,
    channel: Channel,
    recipients: string[],
    reason: SuppressionReason,
    runner: Runner = this.ds,
  ): Promise<number> {
    let added = 0;
    for (let i = 0; i < recipients.length; i += SUPPRESSION_CHUNK) {
      const chunk = recipients.slice(i, i + SUPPRESSION_CHUNK);
      const res = (await runner.query(
        `${INSERT} ${chunk.map(() => '(?, ?, ?, ?, ?)').join(',')}`,
        chunk.flatMap((r) => [owner.accountId, mode(owner), channel, r, reason]),
      )) as { affectedRows?: number };
      added += res.affectedRows ?? 0;
    }
    return added;
  }

  /** Removes recipients; with `onlyReason`, only rows listed for that reason. Answers how many went. */
  async remove(
    owner: ListOwner,
    channel: Channel,
    recipients: string[],
    onlyReason?: SuppressionReason,
    runner: Runner = this.ds,
  ): Promise<number> {
    if (recipients.length === 0) return 0;
    const params = [owner.accountId, mode(owner), channel, recipients];
    const res = (await (onlyReason
      ? runner.query(`DELETE FROM suppressions WHERE ${LISTED} AND reason = ?`, [...params, onlyReason])
      : runner.query(`DELETE FROM suppressions WHERE ${LISTED}`, params))) as { affectedRows?: number };
    return res.affectedRows ?? 0;
  }

  /** Removes recipients unless listed for one of `keep`; answers how many went. */
  async removeExcept(
    owner: ListOwner,
    channel: Channel,
    recipients: string[],
    keep: readonly SuppressionReason[],
  ): Promise<number> {
    const res = (await this.ds.query(`DELETE FROM suppressions WHERE ${LISTED} AND reason NOT IN (?)`, [
      owner.accountId,
      mode(owner),
      channel,
      recipients,
      keep,
    ])) as { affectedRows?: number };
    return res.affectedRows ?? 0;
  }

  /** The reason a recipient is listed for, or null when it is not listed. */
  async reasonOf(owner: ListOwner, channel: Channel, recipient: string): Promise<SuppressionReason | null> {
    const [row] = (await this.ds.query(`SELECT reason FROM suppressions WHERE ${LISTED}`, [
      owner.accountId,
      mode(owner),
      channel,
      [recipient],
    ])) as Array<{ reason: SuppressionReason }>;
    return row?.reason ?? null;
  }

  /**
   * The suppressed recipients among `recipients`: one indexed statement per SUPPRESSION_CHUNK
   * recipients (the primary key answers it), never one per recipient.
   */
  async suppressedAmong(owner: ListOwner, channel: Channel, recipients: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    const chunks: string[][] = [];
    for (let i = 0; i < recipients.length; i += SUPPRESSION_CHUNK)
      chunks.push(recipients.slice(i, i + SUPPRESSION_CHUNK));
    // A few chunks at a time on their own connections: their round trips overlap, and a very
    // large request still leaves the pool to the others.
    for (let i = 0; i < chunks.length; i += SUPPRESSION_CHUNKS_AT_ONCE) {
      const answers = await Promise.all(
        chunks
          .slice(i, i + SUPPRESSION_CHUNKS_AT_ONCE)
          .map(
            (chunk) =>
              this.ds.query(`SELECT recipient FROM suppressions WHERE ${LISTED}`, [
                owner.accountId,
                mode(owner),
                channel,
                chunk,
              ]) as Promise<Array<{ recipient: string }>>,
          ),
      );
      for (const rows of answers) for (const r of rows) found.add(r.recipient);
    }
    return found;
  }

  /**
   * Several sends' lookups (each a few recipients) in one statement: the answer for each, in order.
   * For the many small requests that arrive together; a large request uses suppressedAmong.
   */
  async suppressedAmongMany(lookups: SuppressionLookup[]): Promise<Array<Set<string>>> {
    const asked = lookups.filter((l) => l.recipients.length > 0);
    const rows = asked.length
      ? ((await this.ds.query(
          `SELECT account_id, test_mode, channel, recipient FROM suppressions WHERE ${asked.map(() => LISTED_TERM).join(' OR ')}`,
          asked.flatMap((l) => [l.owner.accountId, mode(l.owner), l.channel, l.recipients]),
        )) as Array<{ account_id: string; test_mode: number; channel: Channel; recipient: string }>)
      : [];
    const listed = new Set(rows.map((r) => `${r.account_id}|${r.test_mode}|${r.channel}|${r.recipient}`));
    return lookups.map(
      (l) =>
        new Set(
          l.recipients.filter((r) => listed.has(`${l.owner.accountId}|${mode(l.owner)}|${l.channel}|${r}`)),
        ),
    );
  }

  /** A page in recipient order, after `after` (the cursor); channel null = every channel. */
  async list(
    owner: ListOwner,
    channel: Channel | null,
    after: { channel: Channel; recipient: string } | null,
    limit: number,
  ): Promise<SuppressionRow[]> {
    // ENUMs sort by their position (sms, email, chat); compared with a number they give it too.
    return (await this.ds.query(
      `SELECT recipient, channel, reason, created_at FROM suppressions
        WHERE account_id = ? AND test_mode = ? AND (? IS NULL OR channel = ?)
          AND (? IS NULL OR (channel = ? AND recipient > ?) OR channel > ?)
        ORDER BY channel, recipient LIMIT ?`,
      [
        owner.accountId,
        mode(owner),
        channel,
        channel,
        after?.channel ?? null,
        after?.channel ?? null,
        after?.recipient ?? null,
        after ? CHANNELS.indexOf(after.channel) + 1 : null,
        limit,
      ],
    )) as SuppressionRow[];
  }
}

const mode = (owner: ListOwner) => (owner.testMode ? 1 : 0);
