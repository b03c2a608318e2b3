import type { DataSource } from 'typeorm';
import type { CallbackJob, WebhookEnvelope } from './callback-job.js';
import { outboxRecipient } from './outbox-recipient.js';

/** Rows given a recipient hash per statement by `backfillRecipientHashes`. */
const HASH_CHUNK = 1000;

/**
 * The notification tables that keep a recipient hash beside the text it was made from: the key
 * they are paged by (and its value before the first), the column holding the text, and who the
 * text names.
 */
const HASHED = {
  callback_outbox: {
    key: 'event_id',
    first: '',
    text: 'job',
    names: (text: string) => outboxRecipient(JSON.parse(text) as CallbackJob),
  },
  webhook_deliveries: {
    key: 'id',
    first: '0',
    text: 'envelope',
    names: (text: string) =>
      outboxRecipient({ eventType: 'webhook', payload: JSON.parse(text) as WebhookEnvelope }),
  },
} as const;

/**
 * Gives a table's rows their recipient hash, a thousand read a statement in key order: those
 * without one (kept before the column existed, or by a process of an older version) and those
 * hashed as naming no one whose text now names someone (a verification event, hashed so by a
 * version that did not read its `to`); or, with `all`, every row (after SERVER_SECRET changed).
 * Returns how many rows were given one.
 */
export async function backfillRecipientHashes(
  notifications: DataSource,
  table: keyof typeof HASHED,
  hash: (recipient: string) => Buffer,
  all: boolean,
): Promise<number> {
  const { key, first, text, names } = HASHED[table];
  const nobody = hash('');
  let done = 0;
  let after: string = first;
  for (;;) {
    const rows = (await notifications.query(
      `SELECT ${key} AS \`key\`, ${text} AS text, recipient_hash AS hash FROM ${table}
        WHERE ${key} > ?${all ? '' : ' AND (recipient_hash IS NULL OR recipient_hash = ?)'} ORDER BY ${key} LIMIT ?`,
      all ? [after, HASH_CHUNK] : [after, nobody, HASH_CHUNK],
    )) as Array<{ key: string; text: string; hash: Buffer | null }>;
    if (rows.length === 0) return done;
    after = String(rows[rows.length - 1]!.key);
    const changed = rows
      .map((r) => ({ key: r.key, hash: hash(names(r.text)), was: r.hash }))
      .filter((r) => all || !r.was || !r.hash.equals(r.was));
    if (changed.length === 0) continue;
    await notifications.query(
      `UPDATE ${table} SET recipient_hash = CASE ${key} ${changed.map(() => 'WHEN ? THEN ?').join(' ')} END
        WHERE ${key} IN (?)`,
      [...changed.flatMap((r) => [r.key, r.hash]), changed.map((r) => r.key)],
    );
    done += changed.length;
  }
}
