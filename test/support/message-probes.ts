import type { Connection } from 'mysql2/promise';

/**
 * Named reads of the message tables for e2e specs, so a spec says what it looks at rather than
 * how; probes.ts, receipt-probes.ts, callback-probes.ts and account-probes.ts hold the others,
 * clock.ts moves stored times, direct-writes.ts changes rows behind the app's back. Specs keep
 * raw SQL where the SQL is their subject: injection.e2e-spec.ts (SQL injection),
 * galera-failover.e2e-spec.ts (reads each chosen node, and a table of its own for certification
 * conflicts), cli-db.e2e-spec.ts (creates and lists databases), request-conventions.e2e-spec.ts
 * (holds a balance row lock from another connection), retention.e2e-spec.ts (holds the prune
 * lock from another connection) and erasure.e2e-spec.ts (searches every column of every database
 * for the erased number).
 */

/** Where a probe reads: the app's data source, or a connection of the test's own (same server). */
export interface Probed {
  /** The suite's main database; its log and notification databases are `${name}_log` and `${name}_notification`. */
  name: string;
  ds: { query: (sql: string, params?: unknown[]) => Promise<any> };
}

/** A plain connection as a probe target, for an app in another process or a server restarted under it. */
export function throughConnection(conn: Pick<Connection, 'query'>, name: string): Probed {
  return {
    name,
    ds: { query: async (sql, params) => ((await conn.query(sql, params)) as unknown as [unknown])[0] },
  };
}

/** The named columns of the rows a SELECT * answers. */
async function select<K extends string>(
  t: Probed,
  sql: string,
  params: unknown[],
  columns: K[],
): Promise<Array<Record<K, any>>> {
  const rows = (await t.ds.query(sql, params)) as Array<Record<string, any>>;
  return rows.map((r) => Object.fromEntries(columns.map((c) => [c, r[c]])) as Record<K, any>);
}

/** The number a SELECT COUNT(*) AS n answers. */
export async function countOf(t: Probed, sql: string, params: unknown[] = []): Promise<number> {
  return Number(((await t.ds.query(sql, params)) as Array<{ n: string | number }>)[0].n);
}

/** The named columns of one request's messages, in id order. */
export async function requestMessages<K extends string>(
  t: Probed,
  sendRequestId: string,
  ...columns: K[]
): Promise<Array<Record<K, any>>> {
  return select(t, 'SELECT * FROM messages WHERE send_request_id = ? ORDER BY id', [sendRequestId], columns);
}

/** The named columns of every message of an account, in id order. */
export async function accountMessages<K extends string>(
  t: Probed,
  accountId: string,
  ...columns: K[]
): Promise<Array<Record<K, any>>> {
  return select(t, 'SELECT * FROM messages WHERE account_id = ? ORDER BY id', [accountId], columns);
}

/** The named columns of one message, found by id, uuid or recipient (ending with the digits given); throws with none. */
export async function messageFields<K extends string>(
  t: Probed,
  which: { id: string } | { uuid: string } | { recipientEndingWith: string },
  ...columns: K[]
): Promise<Record<K, any>> {
  const [sql, param] =
    'id' in which
      ? ['id = ?', which.id]
      : 'uuid' in which
        ? ['uuid = ?', which.uuid]
        : ['recipient LIKE ?', `%${which.recipientEndingWith}`];
  const [row] = await select(t, `SELECT * FROM messages WHERE ${sql} ORDER BY id LIMIT 1`, [param], columns);
  if (!row) throw new Error(`no message with ${JSON.stringify(which)}`);
  return row;
}

/** The named columns of the messages sent as fallbacks of the given messages, with their requests' sender, body and callback. */
export async function fallbacksOf(t: Probed, messageIds: string[]): Promise<Array<Record<string, any>>> {
  return (await t.ds.query(
    `SELECT m.id, m.uuid, m.status, m.reason, m.recipient, m.cost, m.fallback_of, r.sender, r.body, r.callback_url, r.test_mode
       FROM messages m JOIN send_requests r ON r.id = m.send_request_id WHERE m.fallback_of IN (?) ORDER BY m.id`,
    [messageIds],
  )) as Array<Record<string, any>>;
}

/** An account's messages to one recipient with their requests' sender and body, in id order. */
export async function messagesTo(
  t: Probed,
  accountId: string,
  ...recipients: string[]
): Promise<Array<{ recipient: string; status: string; sender: string; body: string }>> {
  return (await t.ds.query(
    `SELECT m.recipient, m.status, r.sender, r.body FROM messages m JOIN send_requests r ON r.id = m.send_request_id
      WHERE m.account_id = ? AND m.recipient IN (?) ORDER BY m.id`,
    [accountId, recipients],
  )) as Array<{ recipient: string; status: string; sender: string; body: string }>;
}

/** How many messages there are (all accounts), or to one recipient. */
export async function allMessagesCount(t: Probed, recipient?: string): Promise<number> {
  return recipient
    ? countOf(t, 'SELECT COUNT(*) AS n FROM messages WHERE recipient = ?', [recipient])
    : countOf(t, 'SELECT COUNT(*) AS n FROM messages');
}

/** The named columns of an account's send requests, in id order. */
export async function requestsOf<K extends string>(
  t: Probed,
  accountId: string,
  ...columns: K[]
): Promise<Array<Record<K, any>>> {
  return select(t, 'SELECT * FROM send_requests WHERE account_id = ? ORDER BY id', [accountId], columns);
}

/** The named columns of the given send requests, in id order. */
export async function requestsById<K extends string>(
  t: Probed,
  sendRequestIds: string[],
  ...columns: K[]
): Promise<Array<Record<K, any>>> {
  return select(t, 'SELECT * FROM send_requests WHERE id IN (?) ORDER BY id', [sendRequestIds], columns);
}

/** How many send requests there are, all accounts together. */
export async function allRequestsCount(t: Probed): Promise<number> {
  return countOf(t, 'SELECT COUNT(*) AS n FROM send_requests');
}

/** How many of the given requests are stored but not yet handed to the queue. */
export async function notEnqueued(t: Probed, sendRequestIds: string[]): Promise<number> {
  return countOf(t, 'SELECT COUNT(*) AS n FROM send_requests WHERE id IN (?) AND enqueued_at IS NULL', [
    sendRequestIds,
  ]);
}

export interface MessageEvent {
  messageId: string;
  uuid: string;
  status: string;
}

/** The state changes recorded for the requests' messages, in event order. */
export async function eventsOfRequests(t: Probed, sendRequestIds: string[]): Promise<MessageEvent[]> {
  const rows = (await t.ds.query(
    `SELECT e.message_id, m.uuid, e.status FROM message_events e JOIN messages m ON m.id = e.message_id
      WHERE m.send_request_id IN (?) ORDER BY e.id`,
    [sendRequestIds],
  )) as Array<{ message_id: string | number; uuid: string; status: string }>;
  return rows.map((r) => ({ messageId: String(r.message_id), uuid: r.uuid, status: r.status }));
}

/** How many rows name the given messages in each table that follows a message's life. */
export async function rowsNamingMessages(
  t: Probed,
  messageIds: string[],
): Promise<{
  message_events: number;
  message_parts: number;
  delivery_reports: number;
  callback_attempts: number;
}> {
  const count = (table: string) =>
    countOf(t, `SELECT COUNT(*) AS n FROM ${table} WHERE message_id IN (?)`, [messageIds]);
  return {
    message_events: await count('message_events'),
    message_parts: await count('message_parts'),
    delivery_reports: await count(`\`${t.name}_notification\`.delivery_reports`),
    callback_attempts: await count(`\`${t.name}_notification\`.callback_attempts`),
  };
}

/** The ids of the MySQL connections running a messages export (its SQL carries a marker comment). */
export async function runningExportQueries(t: Probed): Promise<string[]> {
  const rows = (await t.ds.query(
    "SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE CONCAT('%messages', '-export%')",
  )) as Array<{ ID: string | number }>;
  return rows.map((r) => String(r.ID));
}

/** The messages of a request with more than one event of a state (there should be none). */
export async function repeatedEvents(t: Probed, sendRequestId: string, status: string): Promise<string[]> {
  const ids = (await eventsOfRequests(t, [sendRequestId]))
    .filter((e) => e.status === status)
    .map((e) => e.messageId);
  return [...new Set(ids.filter((id, i) => ids.indexOf(id) !== i))];
}

/** The ids of the requests an account's messages belong to, each once. */
export async function requestIdsWithMessages(t: Probed, accountId: string): Promise<string[]> {
  const rows = (await t.ds.query('SELECT DISTINCT send_request_id FROM messages WHERE account_id = ?', [
    accountId,
  ])) as Array<{ send_request_id: string | number }>;
  return rows.map((r) => String(r.send_request_id));
}

/** How many of the requests' messages were tried and wait, ACKNOWLEDGED, for another try. */
export async function triedAndWaiting(t: Probed, sendRequestIds: string[]): Promise<number> {
  return countOf(
    t,
    "SELECT COUNT(*) AS n FROM messages WHERE send_request_id IN (?) AND status = 'ACKNOWLEDGED' AND attempts > 0",
    [sendRequestIds],
  );
}

/** How many messages (all accounts) still wait for their fallback time. */
export async function fallbacksWaiting(t: Probed): Promise<number> {
  return countOf(t, 'SELECT COUNT(*) AS n FROM messages WHERE fallback_due_at IS NOT NULL');
}

/** One send request's row as stored, every column; throws with no such request. */
export async function sendRequestRow(t: Probed, sendRequestId: string): Promise<Record<string, unknown>> {
  const [row] = (await t.ds.query('SELECT * FROM send_requests WHERE id = ?', [sendRequestId])) as Array<
    Record<string, unknown>
  >;
  if (!row) throw new Error(`no send request ${sendRequestId}`);
  return row;
}
