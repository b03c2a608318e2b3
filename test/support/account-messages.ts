import type { TestApp } from './test-app.js';
import { waitWhileProgressing } from './wait.js';

/** How many of an account's messages are in each state, e.g. `{ DELIVERED: 2990, SENT: 10 }`. */
export async function statesOf(t: TestApp, accountId: string): Promise<Record<string, number>> {
  const rows = (await t.ds.query(
    'SELECT status, COUNT(*) AS n FROM messages WHERE account_id = ? GROUP BY status',
    [accountId],
  )) as Array<{ status: string; n: string }>;
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

/** Waits (while the SMSC's count keeps rising) until `total` of the account's messages are DELIVERED; names the states if not. */
export async function untilDelivered(
  t: TestApp,
  accountId: string,
  total: number,
  progress: () => number,
): Promise<void> {
  // A read cut by a database failover (the connection dropped under it) is made again at the next poll.
  const delivered = async () => (await statesOf(t, accountId).catch(() => undefined))?.DELIVERED ?? 0;
  await waitWhileProgressing(async () => (await delivered()) >= total, progress, {
    stallMs: 30_000,
    maxMs: 120_000,
    what: `${total} messages DELIVERED`,
  }).catch(async (err: Error) => {
    throw new Error(`${err.message}; states now ${JSON.stringify(await statesOf(t, accountId))}`);
  });
}

/** How many of the requests' messages are in each state, e.g. `{ SENT: 140, QUEUED: 10 }`. */
export async function statesOfRequests(
  t: TestApp,
  sendRequestIds: string[],
): Promise<Record<string, number>> {
  const rows = (await t.ds.query(
    'SELECT status, COUNT(*) AS n FROM messages WHERE send_request_id IN (?) GROUP BY status',
    [sendRequestIds],
  )) as Array<{ status: string; n: string }>;
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}
