import type { Probed } from './message-probes.js';

/**
 * Many messages fast, for the search tests and benchmarks: multi-row INSERT ... SELECT from
 * MariaDB's sequence tables (seq_1_to_N), in slices, instead of a round trip per row. Requests
 * hold `perRequest` messages each and share one created_at, as the send pipeline writes them;
 * requests are `stepMs` apart. Statuses, channels and recipients vary with the row number.
 */

export interface SeedOptions {
  accountId: string;
  count: number;
  /** First message id (request ids are derived from it); distinct per seed. */
  firstId: bigint;
  start: Date;
  perRequest?: number;
  stepMs?: number;
  /** Messages per INSERT statement. */
  slice?: number;
  /**
   * Ids as the service makes them: the millisecond of the request's created_at times 1,000,000
   * plus a sequence (the messages 0 to perRequest - 1, the request perRequest), so that a range
   * of ids is a range of time; `firstId` is unused and `stepMs` must be at least 1. Otherwise
   * ids are consecutive from `firstId`, whatever the time.
   */
  idsFollowTime?: boolean;
  currency?: string;
}

export type Query = (sql: string, params?: unknown[]) => Promise<unknown>;

/** The statuses seeded, one per row number modulo 10: mostly DELIVERED, some of every other. */
export const SEED_STATUSES = [
  'DELIVERED',
  'DELIVERED',
  'DELIVERED',
  'DELIVERED',
  'SENT',
  'UNDELIVERED',
  'FAILED',
  'REJECTED',
  'ACKNOWLEDGED',
  'EXPIRED',
];
export const SEED_CHANNELS = ['sms', 'email', 'chat'];

/** The recipient of row n (1-based): 10,000 distinct numbers, so a recipient has count / 10,000 rows. */
export const seedRecipient = (n: number) => `26097${String(n % 10_000).padStart(7, '0')}`;

const list = (xs: string[]) => xs.map((x) => `'${x}'`).join(',');

export async function seedMessages(query: Query, o: SeedOptions): Promise<{ requestIds: string[] }> {
  const perRequest = o.perRequest ?? 1000;
  const stepMs = o.stepMs ?? 10;
  const slice = o.slice ?? 100_000;
  const requests = Math.ceil(o.count / perRequest);
  if (o.idsFollowTime && stepMs < 1) throw new Error('idsFollowTime needs stepMs >= 1');
  // Request n's id and its messages' first: consecutive, or following the request's time.
  const step = o.idsFollowTime ? BigInt(stepMs) * 1_000_000n : 1n;
  const base = o.idsFollowTime ? BigInt(o.start.getTime()) * 1_000_000n : o.firstId;
  const requestBase = o.idsFollowTime ? base + BigInt(perRequest) : base;
  const messageBase = o.idsFollowTime ? base : o.firstId + BigInt(requests);
  const start = o.start;
  await query(
    `INSERT INTO send_requests (id, account_id, api_key_id, channel, sender, subject, body, reply_to, source,
       callback_url, user_reference_id, request_hash, recipient_count, accepted_count, units_per_recipient,
       cost, currency, created_at, enqueued_at)
     SELECT id, ?, 1, ELT(1 + seq % 3, ${list(SEED_CHANNELS)}), 'SEED', NULL, 'seeded', NULL, NULL,
            NULL, CONCAT('seed-', id), UNHEX(SHA2(id, 256)), ?, ?, 1, ? * 0.25, ?,
            ? + INTERVAL (seq * ?) * 1000 MICROSECOND, ? + INTERVAL (seq * ?) * 1000 MICROSECOND
       FROM (SELECT seq, CAST(? AS UNSIGNED) + seq * CAST(? AS UNSIGNED) AS id FROM seq_0_to_${requests - 1}) rs`,
    [
      o.accountId,
      perRequest,
      perRequest,
      perRequest,
      o.currency ?? 'ZMW',
      start,
      stepMs,
      start,
      stepMs,
      String(requestBase),
      String(step),
    ],
  );
  // Message k belongs to request k DIV perRequest; its id is the request's time's base plus its
  // place in the request (time-ordered), or the next consecutive one.
  const messageId = o.idsFollowTime
    ? `CAST(? AS UNSIGNED) + (k DIV ${perRequest}) * CAST(? AS UNSIGNED) + k % ${perRequest}`
    : 'CAST(? AS UNSIGNED) + k';
  for (let from = 0; from < o.count; from += slice) {
    const n = Math.min(slice, o.count - from);
    await query(
      `INSERT INTO messages (id, uuid, send_request_id, account_id, channel, recipient, status, reason, units, cost,
         created_at, updated_at)
       SELECT id, CONCAT(SUBSTR(h, 1, 8), '-', SUBSTR(h, 9, 4), '-7000-8000-', LPAD(SUBSTR(h, 13, 4), 12, '0')),
              CAST(? AS UNSIGNED) + (k DIV ?) * CAST(? AS UNSIGNED), ?,
              ELT(1 + (k DIV ?) % 3, ${list(SEED_CHANNELS)}),
              CONCAT('26097', LPAD((k + 1) % 10000, 7, '0')),
              ELT(1 + (k + 1) % 10, ${list(SEED_STATUSES)}),
              IF((k + 1) % 10 = 7, 'INVALID_NUMBER', NULL), IF((k + 1) % 10 = 7, 0, 1), IF((k + 1) % 10 = 7, 0, 0.25),
              ? + INTERVAL ((k DIV ?) * ?) * 1000 MICROSECOND, ? + INTERVAL ((k DIV ?) * ?) * 1000 MICROSECOND
         FROM (SELECT k, id, LOWER(LPAD(HEX(id), 16, '0')) AS h
                 FROM (SELECT k, ${messageId} AS id
                         FROM (SELECT seq + ? AS k FROM seq_0_to_${n - 1}) ks) ki) s`,
      [
        String(requestBase),
        perRequest,
        String(step),
        o.accountId,
        perRequest,
        start,
        perRequest,
        stepMs,
        start,
        perRequest,
        stepMs,
        String(messageBase),
        ...(o.idsFollowTime ? [String(step)] : []),
        from,
      ],
    );
  }
  return {
    requestIds: Array.from({ length: requests }, (_, i) => String(requestBase + BigInt(i) * step)),
  };
}

/** seedMessages through a test app's data source (or any probe target). */
export function seedAccountMessages(t: Probed, o: SeedOptions): Promise<{ requestIds: string[] }> {
  return seedMessages((sql, params) => t.ds.query(sql, params), o);
}
