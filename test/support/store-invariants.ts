import type { Probed } from './message-probes.js';

/**
 * What "nothing half-stored, nothing lost, money exact" means in SQL, for the fault tests and
 * the soak: every query lists the rows that break a rule, so an empty answer means it holds.
 * Takes anything with mysql2's promise `query` (a Connection or a Pool) on the main database.
 */
export interface Queryable {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

export interface InvariantReport {
  /** send_requests whose messages do not add up: count, accepted count or cost differ from the request row. */
  halfStored: Array<{
    id: string;
    recipient_count: number;
    accepted_count: number;
    cost: string;
    n: number;
    accepted: number;
    message_cost: string;
  }>;
  /** Requests with a positive cost that do not have exactly one charge of exactly -cost. */
  badCharges: Array<{ id: string; cost: string; charges: number; charged: string | null }>;
  /** Messages, and charge ledger rows, whose send request does not exist. */
  orphanMessages: number;
  orphanCharges: number;
  /** Account channels whose balance differs from the sum of their ledger. */
  ledgerMismatches: Array<{ account_id: string; channel: string; balance: string; ledger: string }>;
  /** Messages refunded more than once, or refunded without having ended FAILED or REJECTED. */
  badRefunds: Array<{ message_id: string; refunds: number; status: string | null }>;
}

async function rows<T>(db: Queryable, sql: string, params: unknown[] = []): Promise<T[]> {
  const res = (await db.query(sql, params)) as [T[], unknown];
  return res[0];
}

export async function checkStore(db: Queryable): Promise<InvariantReport> {
  const halfStored = await rows<InvariantReport['halfStored'][number]>(
    db,
    `SELECT r.id, r.recipient_count, r.accepted_count, r.cost,
            COUNT(m.id) AS n, COALESCE(SUM(m.units > 0), 0) AS accepted, COALESCE(SUM(m.cost), 0) AS message_cost
       FROM send_requests r LEFT JOIN messages m ON m.send_request_id = r.id
      GROUP BY r.id, r.recipient_count, r.accepted_count, r.cost
     HAVING n <> r.recipient_count OR accepted <> r.accepted_count OR message_cost <> r.cost`,
  );
  const badCharges = await rows<InvariantReport['badCharges'][number]>(
    db,
    `SELECT r.id, r.cost, COALESCE(l.charges, 0) AS charges, l.charged
       FROM send_requests r
       LEFT JOIN (SELECT send_request_id, COUNT(*) AS charges, SUM(amount) AS charged
                    FROM ledger_entries WHERE kind = 'charge' GROUP BY send_request_id) l ON l.send_request_id = r.id
      WHERE (r.cost > 0 AND (l.charges IS NULL OR l.charges <> 1 OR l.charged <> -r.cost))
         OR (r.cost = 0 AND l.charges IS NOT NULL)`,
  );
  const [{ n: orphanMessages }] = await rows<{ n: string }>(
    db,
    'SELECT COUNT(*) AS n FROM messages m LEFT JOIN send_requests r ON r.id = m.send_request_id WHERE r.id IS NULL',
  );
  const [{ n: orphanCharges }] = await rows<{ n: string }>(
    db,
    "SELECT COUNT(*) AS n FROM ledger_entries l LEFT JOIN send_requests r ON r.id = l.send_request_id WHERE l.kind = 'charge' AND r.id IS NULL",
  );
  const ledgerMismatches = await rows<InvariantReport['ledgerMismatches'][number]>(
    db,
    `SELECT c.account_id, c.channel, c.balance, COALESCE(l.total, 0) AS ledger
       FROM account_channels c
       LEFT JOIN (SELECT account_id, channel, SUM(amount) AS total FROM ledger_entries GROUP BY account_id, channel) l
              ON l.account_id = c.account_id AND l.channel = c.channel
      WHERE c.balance <> COALESCE(l.total, 0)`,
  );
  const badRefunds = await rows<InvariantReport['badRefunds'][number]>(
    db,
    `SELECT l.message_id, COUNT(*) AS refunds, m.status
       FROM ledger_entries l LEFT JOIN messages m ON m.id = l.message_id
      WHERE l.kind = 'refund'
      GROUP BY l.message_id, m.status, m.reason
     HAVING refunds <> 1 OR m.status IS NULL
         OR (m.status NOT IN ('FAILED', 'REJECTED', 'CANCELLED')
             AND NOT (m.status = 'EXPIRED' AND m.reason = 'VALIDITY_PERIOD_ELAPSED'))`,
  );
  return {
    halfStored,
    badCharges,
    orphanMessages: Number(orphanMessages),
    orphanCharges: Number(orphanCharges),
    ledgerMismatches,
    badRefunds,
  };
}

/** The broken rules, one line each; empty when the store is consistent. */
export function describeProblems(r: InvariantReport): string[] {
  const out: string[] = [];
  if (r.halfStored.length)
    out.push(`${r.halfStored.length} half-stored request(s), e.g. ${JSON.stringify(r.halfStored[0])}`);
  if (r.badCharges.length)
    out.push(
      `${r.badCharges.length} request(s) without exactly one exact charge, e.g. ${JSON.stringify(r.badCharges[0])}`,
    );
  if (r.orphanMessages) out.push(`${r.orphanMessages} message(s) without their request`);
  if (r.orphanCharges) out.push(`${r.orphanCharges} charge(s) without their request`);
  if (r.ledgerMismatches.length)
    out.push(
      `${r.ledgerMismatches.length} balance(s) differ from their ledger, e.g. ${JSON.stringify(r.ledgerMismatches[0])}`,
    );
  if (r.badRefunds.length)
    out.push(`${r.badRefunds.length} bad refund(s), e.g. ${JSON.stringify(r.badRefunds[0])}`);
  return out;
}

/** What checkStore finds, described, read through a test app's data source (or any probe target). */
export async function storeProblems(t: Probed): Promise<string[]> {
  return describeProblems(
    await checkStore({ query: async (sql, params) => [await t.ds.query(sql, params), null] }),
  );
}
