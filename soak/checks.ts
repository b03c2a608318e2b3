import type { Pool } from 'mysql2/promise';
import { checkStore, describeProblems, type Queryable } from '../test/support/store-invariants.js';
import type { SmppPeer } from '../test/support/smpp-peer.js';
import type { LoadStats } from './load.js';

export interface Check {
  check: string;
  value: string | number;
  expected: string;
  ok: boolean;
}

const FINAL = ['DELIVERED', 'UNDELIVERED', 'EXPIRED', 'FAILED', 'REJECTED'];

async function rows<T>(db: Pool, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await db.query(sql, params))[0] as T[];
}

/** Messages per channel and status. */
export async function messageStates(
  db: Pool,
): Promise<Array<{ channel: string; status: string; n: number }>> {
  return (
    await rows<{ channel: string; status: string; n: string }>(
      db,
      'SELECT channel, status, COUNT(*) AS n FROM messages GROUP BY channel, status ORDER BY channel, status',
    )
  ).map((r) => ({ ...r, n: Number(r.n) }));
}

/** Accepted messages (charged at intake) not yet SENT or final. */
export async function waitingMessages(db: Pool): Promise<number> {
  const [{ n }] = await rows<{ n: string }>(
    db,
    "SELECT COUNT(*) AS n FROM messages WHERE status = 'ACKNOWLEDGED'",
  );
  return Number(n);
}

/** Callback events that should have been delivered: every state change after ACKNOWLEDGED of a message whose request named a callback_url. */
export async function expectedCallbacks(db: Pool): Promise<number> {
  const [{ n }] = await rows<{ n: string }>(
    db,
    `SELECT COUNT(*) AS n FROM message_events e JOIN messages m ON m.id = e.message_id JOIN send_requests r ON r.id = m.send_request_id
      WHERE r.callback_url IS NOT NULL AND e.status <> 'ACKNOWLEDGED'`,
  );
  return Number(n);
}

export async function ledgerTable(
  db: Pool,
): Promise<Array<{ username: string; channel: string; balance: string; ledger: string; ok: boolean }>> {
  const list = await rows<{
    username: string;
    channel: string;
    balance: string;
    ledger: string;
    ok: number | string;
  }>(
    db,
    `SELECT a.username, c.channel, c.balance, COALESCE(l.total, 0) AS ledger, c.balance = COALESCE(l.total, 0) AS ok
       FROM account_channels c JOIN accounts a ON a.id = c.account_id
       LEFT JOIN (SELECT account_id, channel, SUM(amount) AS total FROM ledger_entries GROUP BY account_id, channel) l
              ON l.account_id = c.account_id AND l.channel = c.channel
      ORDER BY a.username, c.channel`,
  );
  return list.map((r) => ({ ...r, ok: Number(r.ok) === 1 }));
}

export interface CallbackLog {
  /** event_id → times answered 2xx. */
  delivered: Map<string, number>;
  attempts: number;
  refusedOnPurpose: number;
  badSignatures: number;
}

export async function runChecks(
  db: Pool,
  stats: LoadStats,
  smsc: SmppPeer,
  callbacks: CallbackLog,
  crashed: string[],
): Promise<Check[]> {
  const out: Check[] = [];
  const add = (check: string, value: string | number, expected: string, ok: boolean) =>
    out.push({ check, value, expected, ok });

  const fivexx = [...stats.answers.values()]
    .flatMap((m) => [...m.entries()])
    .filter(([a]) => a.startsWith('5'))
    .reduce((n, [, c]) => n + c, 0);
  add('5xx answers', fivexx, '0', fivexx === 0);
  add('network errors (no answer)', stats.networkErrors, '0', stats.networkErrors === 0);
  add('unexpected answers', stats.unexpectedCount, '0', stats.unexpectedCount === 0);
  add(
    'idempotent replays with a different api_reference',
    stats.replayMismatches,
    '0',
    stats.replayMismatches === 0,
  );
  const poor402 = stats.answers.get('sms-poor')?.get('402 INSUFFICIENT_BALANCE') ?? 0;
  add('402 INSUFFICIENT_BALANCE (balance ran out)', poor402, '> 0', poor402 > 0);
  add(
    'processes that exited during the soak',
    crashed.length ? crashed.join(', ') : 0,
    '0',
    crashed.length === 0,
  );

  // Every 200 answer is stored as answered.
  const acked = [...stats.acknowledged.entries()];
  let missing = 0;
  let miscounted = 0;
  for (let i = 0; i < acked.length; i += 1000) {
    const part = acked.slice(i, i + 1000);
    const found = await rows<{ id: string; accepted_count: number }>(
      db,
      'SELECT id, accepted_count FROM send_requests WHERE id IN (?)',
      [part.map(([id]) => id)],
    );
    const byId = new Map(found.map((r) => [String(r.id), Number(r.accepted_count)]));
    for (const [id, a] of part) {
      if (!byId.has(id)) missing++;
      else if (byId.get(id) !== a.accepted) miscounted++;
    }
  }
  add(
    'acknowledged requests not stored / stored with another count',
    `${missing} / ${miscounted}`,
    '0 / 0',
    missing === 0 && miscounted === 0,
  );

  const problems = describeProblems(await checkStore(db as unknown as Queryable));
  add(
    'store invariants (half-stored, charges, orphans, ledger = balance, refunds)',
    problems.length ? problems.join('; ') : 'all hold',
    'all hold',
    problems.length === 0,
  );

  const waiting = await waitingMessages(db);
  add('accepted messages still ACKNOWLEDGED after the drain', waiting, '0', waiting === 0);
  const [{ n: notFinal }] = await rows<{ n: string }>(
    db,
    `SELECT COUNT(*) AS n FROM messages WHERE status NOT IN (?)`,
    [[...FINAL, 'SENT']],
  );
  add('accepted messages neither SENT nor final', Number(notFinal), '0', Number(notFinal) === 0);

  // SMS at the SMSC: each accepted number exactly once (numbers are unique per message over the whole soak).
  const sms = await rows<{ recipient: string; status: string }>(
    db,
    "SELECT recipient, status FROM messages WHERE channel = 'sms' AND units > 0",
  );
  const lost = sms.filter((m) => smsc.countByDestination(m.recipient) === 0);
  const duplicates = sms.filter((m) => smsc.countByDestination(m.recipient) > 1);
  const known = new Set(sms.map((m) => m.recipient));
  const phantom = smsc.received.filter((r) => !known.has(r.destination)).length;
  add('SMS accepted in MySQL', sms.length, '> 0', sms.length > 0);
  add(
    'SMS submits received by the SMSC',
    smsc.received.length,
    `= ${sms.length}`,
    smsc.received.length === sms.length,
  );
  add('SMS lost (accepted, never reached the SMSC)', lost.length, '0', lost.length === 0);
  add('SMS duplicates at the SMSC (a number seen twice)', duplicates.length, '0', duplicates.length === 0);
  add('SMSC submits for numbers never accepted', phantom, '0', phantom === 0);

  const expected = await expectedCallbacks(db);
  const delivered = callbacks.delivered.size;
  const twice = [...callbacks.delivered.values()].filter((n) => n > 1).length;
  add(
    'callback events delivered (2xx) / expected',
    `${delivered} / ${expected}`,
    'equal',
    delivered === expected && expected > 0,
  );
  add('callback events delivered twice (at-least-once; dedupe on event_id)', twice, 'reported', true);
  add('callbacks with a bad signature', callbacks.badSignatures, '0', callbacks.badSignatures === 0);
  return out;
}
