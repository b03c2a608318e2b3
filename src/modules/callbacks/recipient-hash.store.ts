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
 * Gives a table's rows their recipient hash, a thousand a statement in key order: those without
 * one (kept before the column existed, or by a process of an older version), or, with `all`,
 * every row (after SERVER_SECRET changed). Returns how many rows were given one.
 */
export async function backfillRecipientHashes(
  notifications: DataSource,
  table: keyof typeof HASHED,
  hash: (recipient: string) => Buffer,
  all: boolean,
): Promise<number> {
  const { key, first, text, names } = HASHED[table];
  let done = 0;
  let after: string = first;
  for (;;) {
    const rows = (await notifications.query(
      `SELECT ${key} AS \`key\`, ${text} AS text FROM ${table}
        WHERE ${key} > ?${all ? '' : ' AND recipient_hash IS NULL'} ORDER BY ${key} LIMIT ?`,
      [after, HASH_CHUNK],
    )) as Array<{ key: string; text: string }>;
    if (rows.length === 0) return done;
    await notifications.query(
      `UPDATE ${table} SET recipient_hash = CASE ${key} ${rows.map(() => 'WHEN ? THEN ?').join(' ')} END
        WHERE ${key} IN (?)`,
      [...rows.flatMap((r) => [r.key, hash(names(r.text))]), rows.map((r) => r.key)],
    );
    done += rows.length;
    after = String(rows[rows.length - 1]!.key);
  }
}
