import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';

export interface NewInbound {
  uuid: string;
  accountId: string;
  /** Received for the account's test side (a test key's recipient answering). */
  testMode: boolean;
  from: string;
  to: string;
  text: string;
  keyword: string | null;
  inReplyTo: string | null;
  source: string;
  replyText: string | null;
  receivedAt: Date;
}

export interface InboundRow {
  id: string;
  uuid: string;
  account_id: string;
  test_mode: number;
  sender: string;
  recipient: string;
  text: string;
  keyword: string | null;
  in_reply_to: string | null;
  reply_text: string | null;
  received_at: Date;
}

export interface InboundSettings {
  inbound_url: string | null;
  reply_on_stop: string | null;
  reply_on_start: string | null;
  reply_on_help: string | null;
}

const COLUMNS =
  'id, uuid, account_id, test_mode, sender, recipient, text, keyword, in_reply_to, reply_text, received_at';

/** All SQL on inbound messages, their waiting parts, and each account's inbound settings. */
@Injectable()
export class InboundStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  async insert(em: EntityManager, rows: NewInbound[]): Promise<void> {
    await em.query(
      `INSERT INTO inbound_messages (uuid, account_id, test_mode, sender, recipient, text, keyword, in_reply_to, source, reply_text, reply_state, received_at)
       VALUES ${rows.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(',')}`,
      rows.flatMap((r) => [
        r.uuid,
        r.accountId,
        r.testMode ? 1 : 0,
        r.from,
        r.to,
        r.text,
        r.keyword,
        r.inReplyTo,
        r.source,
        r.replyText,
        r.replyText ? 'pending' : 'none',
        r.receivedAt,
      ]),
    );
  }

  async byUuids(uuids: string[]): Promise<InboundRow[]> {
    if (uuids.length === 0) return [];
    return (await this.ds.query(`SELECT ${COLUMNS} FROM inbound_messages WHERE uuid IN (?) ORDER BY id`, [
      uuids,
    ])) as InboundRow[];
  }

  /** One page of the account's test or live side, oldest first, after the row id `afterId`; a filter left out matches everything. */
  async page(
    accountId: string,
    testMode: boolean,
    filter: { since?: Date; to?: string },
    afterId: string | null,
    limit: number,
  ): Promise<InboundRow[]> {
    const to = filter.to ?? null;
    const since = filter.since ?? null;
    return (await this.ds.query(
      `SELECT ${COLUMNS} FROM inbound_messages
        WHERE account_id = ? AND test_mode = ? AND (? IS NULL OR recipient = ?) AND (? IS NULL OR received_at >= ?) AND id > ?
        ORDER BY id LIMIT ?`,
      [accountId, testMode ? 1 : 0, to, to, since, since, afterId ?? '0', limit],
    )) as InboundRow[];
  }

  /** The id of the newest inbound message of any account (the primary key's last entry), or null when there is none. */
  async newestId(): Promise<string | null> {
    const [row] = (await this.ds.query('SELECT MAX(id) AS id FROM inbound_messages')) as Array<{
      id: string | number | null;
    }>;
    return row?.id == null ? null : String(row.id);
  }

  /**
   * Whether the sender had an auto-reply to `keyword` from this side of the account since
   * `since` (one due or sent: the row kept its text). Read through ix_inbound_messages_sender.
   */
  async repliedSince(
    em: EntityManager,
    owner: { accountId: string; testMode: boolean },
    sender: string,
    keyword: string,
    since: Date,
  ): Promise<boolean> {
    const rows = (await em.query(
      `SELECT 1 FROM inbound_messages
        WHERE account_id = ? AND test_mode = ? AND sender = ? AND received_at >= ? AND keyword = ? AND reply_text IS NOT NULL
        LIMIT 1`,
      [owner.accountId, owner.testMode ? 1 : 0, sender, since, keyword],
    )) as unknown[];
    return rows.length > 0;
  }

  /** Auto-replies not yet sent (the receiving process had no queue, or stopped before sending). */
  async pendingReplies(olderThan: Date, limit: number): Promise<InboundRow[]> {
    return (await this.ds.query(
      `SELECT ${COLUMNS} FROM inbound_messages WHERE reply_state = 'pending' AND received_at < ? ORDER BY received_at LIMIT ?`,
      [olderThan, limit],
    )) as InboundRow[];
  }

  async replyDone(ids: string[]): Promise<void> {
    if (ids.length)
      await this.ds.query("UPDATE inbound_messages SET reply_state = 'done' WHERE id IN (?)", [ids]);
  }

  // ------------------------------------------------------------------ settings

  async settings(accountIds: string[]): Promise<Map<string, InboundSettings>> {
    if (accountIds.length === 0) return new Map();
    const rows = (await this.ds.query(
      'SELECT account_id, inbound_url, reply_on_stop, reply_on_start, reply_on_help FROM account_inbound_settings WHERE account_id IN (?)',
      [accountIds],
    )) as Array<InboundSettings & { account_id: string }>;
    return new Map(rows.map((r) => [String(r.account_id), r]));
  }

  /** Sets the given settings, leaving the others as they are (undefined = unchanged, null = cleared). */
  async updateSettings(accountId: string, change: Partial<InboundSettings>): Promise<void> {
    const set = (k: keyof InboundSettings) => (change[k] === undefined ? [0, null] : [1, change[k]]);
    const [url, stop, start, help] = [
      set('inbound_url'),
      set('reply_on_stop'),
      set('reply_on_start'),
      set('reply_on_help'),
    ];
    // Each value travels with a flag: 1 sets it (even to null), 0 keeps what is there.
    await this.ds.query(
      `INSERT INTO account_inbound_settings (account_id, inbound_url, reply_on_stop, reply_on_start, reply_on_help)
       VALUES (?, ?, ?, ?, ?)
       ON DUPLICATE KEY UPDATE
         inbound_url = IF(?, VALUES(inbound_url), inbound_url),
         reply_on_stop = IF(?, VALUES(reply_on_stop), reply_on_stop),
         reply_on_start = IF(?, VALUES(reply_on_start), reply_on_start),
         reply_on_help = IF(?, VALUES(reply_on_help), reply_on_help)`,
      [accountId, url[1], stop[1], start[1], help[1], url[0], stop[0], start[0], help[0]],
    );
  }

  // ------------------------------------------------------------------ parts

  /**
   * Keeps one part of a concatenated message; when it completes the set, answers the whole text
   * (parts in sequence order, whatever order they came in) and forgets the parts. The group
   * row is locked first, so two last parts arriving at once on two connections cannot both
   * miss each other.
   */
  async addPart(
    em: EntityManager,
    key: { from: string; to: string; ref: number; total: number },
    seq: number,
    text: string,
  ): Promise<string | null> {
    const k = [key.from, key.to, key.ref, key.total];
    await em.query(
      'INSERT INTO inbound_part_groups (sender, recipient, ref, total) VALUES (?, ?, ?, ?) ON DUPLICATE KEY UPDATE total = total',
      k,
    );
    // A part sent twice (the SMSC did not get our answer) replaces itself.
    await em.query(
      'INSERT INTO inbound_parts (sender, recipient, ref, total, seq, text_utf16) VALUES (?, ?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE text_utf16 = VALUES(text_utf16)',
      // UTF-16 keeps a surrogate half whole (emoji split between UCS-2 parts); UTF-8 would not.
      [...k, seq, Buffer.from(text, 'utf16le')],
    );
    const parts = (await em.query(
      'SELECT seq, text_utf16 FROM inbound_parts WHERE sender = ? AND recipient = ? AND ref = ? AND total = ? ORDER BY seq FOR UPDATE',
      k,
    )) as Array<{ seq: number; text_utf16: Buffer }>;
    if (parts.length < key.total) return null;
    await em.query(
      'DELETE FROM inbound_parts WHERE sender = ? AND recipient = ? AND ref = ? AND total = ?',
      k,
    );
    await em.query(
      'DELETE FROM inbound_part_groups WHERE sender = ? AND recipient = ? AND ref = ? AND total = ?',
      k,
    );
    return Buffer.concat(parts.map((p) => p.text_utf16)).toString('utf16le');
  }

  /** Parts whose set never completed within `olderThan` are dropped (a lost part is not coming). */
  async dropStaleParts(olderThan: Date): Promise<number> {
    const groups = (await this.ds.query(
      'SELECT sender, recipient, ref, total FROM inbound_part_groups WHERE first_at < ? LIMIT 500',
      [olderThan],
    )) as Array<{ sender: string; recipient: string; ref: number; total: number }>;
    for (const g of groups) {
      const k = [g.sender, g.recipient, g.ref, g.total];
      await this.ds.query(
        'DELETE FROM inbound_parts WHERE sender = ? AND recipient = ? AND ref = ? AND total = ?',
        k,
      );
      await this.ds.query(
        'DELETE FROM inbound_part_groups WHERE sender = ? AND recipient = ? AND ref = ? AND total = ?',
        k,
      );
    }
    return groups.length;
  }
}
