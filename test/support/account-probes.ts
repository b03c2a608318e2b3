import type { Channel } from '../../src/modules/messages/channel.js';
import { countOf as count, type Probed } from './message-probes.js';

/** Named reads of accounts, keys, ledgers, inbound messages and request logs for e2e specs. */

function pick<K extends string>(
  row: Record<string, any> | undefined,
  columns: K[],
  what: string,
): Record<K, any> {
  if (!row) throw new Error(`no ${what}`);
  return Object.fromEntries(columns.map((c) => [c, row[c]])) as Record<K, any>;
}

/** The named columns of an account's row, by id or username; throws with no such account. */
export async function accountFields<K extends string>(
  t: Probed,
  which: { id: string } | { username: string },
  ...columns: K[]
): Promise<Record<K, any>> {
  const [row] = await t.ds.query(
    'id' in which ? 'SELECT * FROM accounts WHERE id = ?' : 'SELECT * FROM accounts WHERE username = ?',
    ['id' in which ? which.id : which.username],
  );
  return pick(row, columns, `account ${JSON.stringify(which)}`);
}

/** How many accounts have a username. */
export async function accountsNamed(t: Probed, username: string): Promise<number> {
  return count(t, 'SELECT COUNT(*) AS n FROM accounts WHERE username = ?', [username]);
}

/** The named columns of an API key's row as stored (key_hash as bytes); throws with no such key. */
export async function apiKeyFields<K extends string>(
  t: Probed,
  keyId: string,
  ...columns: K[]
): Promise<Record<K, any>> {
  const [row] = await t.ds.query('SELECT * FROM api_keys WHERE id = ?', [keyId]);
  return pick(row, columns, `API key ${keyId}`);
}

/** An API key's row as stored, every column. */
export async function apiKeyRow(t: Probed, keyId: string): Promise<Record<string, any>> {
  const [row] = await t.ds.query('SELECT * FROM api_keys WHERE id = ?', [keyId]);
  if (!row) throw new Error(`no API key ${keyId}`);
  return row as Record<string, any>;
}

/** The stored hash of an API key, as upper-case hex. */
export async function apiKeyHashHex(t: Probed, keyId: string): Promise<string> {
  const [row] = (await t.ds.query('SELECT HEX(key_hash) AS h FROM api_keys WHERE id = ?', [keyId])) as Array<{
    h: string;
  }>;
  if (!row) throw new Error(`no API key ${keyId}`);
  return row.h;
}

/** The named columns of an account's keys with a name (every account with none given). */
export async function apiKeysNamed<K extends string>(
  t: Probed,
  name: string,
  accountId?: string,
  ...columns: K[]
): Promise<Array<Record<K, any>>> {
  const rows = (await t.ds.query(
    accountId
      ? 'SELECT * FROM api_keys WHERE name = ? AND account_id = ? ORDER BY id'
      : 'SELECT * FROM api_keys WHERE name = ? ORDER BY id',
    accountId ? [name, accountId] : [name],
  )) as Array<Record<string, any>>;
  return rows.map((r) => pick(r, columns, 'key'));
}

/** An account's channel row as stored: balance and cost per unit (e.g. '9.850000'), read with plain SQL (no app needed). */
export async function storedChannel(
  t: Probed,
  accountId: string,
  channel: Channel = 'sms',
): Promise<{ balance: string; cost_per_unit: string }> {
  const [row] = (await t.ds.query(
    'SELECT balance, cost_per_unit FROM account_channels WHERE account_id = ? AND channel = ?',
    [accountId, channel],
  )) as Array<{ balance: string; cost_per_unit: string }>;
  if (!row) throw new Error(`no ${channel} channel for account ${accountId}`);
  return row;
}

/** An account's balance on a channel as stored (e.g. '9.850000'), read with plain SQL (no app needed). */
export async function storedBalance(t: Probed, accountId: string, channel: Channel = 'sms'): Promise<string> {
  return (await storedChannel(t, accountId, channel)).balance;
}

/** Every channel's balance of an account, by channel name. */
export async function storedBalances(
  t: Probed,
  accountId: string,
): Promise<Array<{ channel: string; balance: string }>> {
  return (await t.ds.query(
    'SELECT channel, balance FROM account_channels WHERE account_id = ? ORDER BY channel',
    [accountId],
  )) as Array<{ channel: string; balance: string }>;
}

export interface LedgerRow {
  id: string;
  account_id: string;
  channel: string;
  kind: string;
  amount: string;
  send_request_id: string | null;
  message_id: string | null;
  transfer_id: string | null;
}

/** Ledger entries, oldest first: of an account, of a transfer, or of every account, optionally of one kind. */
export async function ledgerEntries(
  t: Probed,
  which: { accountId: string } | { transferId: string } | 'all',
  kind?: string,
): Promise<LedgerRow[]> {
  const [where, params]: [string, unknown[]] =
    which === 'all'
      ? ['1 = 1', []]
      : 'accountId' in which
        ? ['account_id = ?', [which.accountId]]
        : ['transfer_id = ?', [which.transferId]];
  const rows = (await t.ds.query(
    `SELECT * FROM ledger_entries WHERE ${where}${kind ? ' AND kind = ?' : ''} ORDER BY id`,
    kind ? [...params, kind] : params,
  )) as Array<Record<string, any>>;
  const str = (v: unknown) => (v == null ? null : String(v));
  return rows.map((r) => ({
    id: String(r.id),
    account_id: String(r.account_id),
    channel: r.channel,
    kind: r.kind,
    amount: r.amount,
    send_request_id: str(r.send_request_id),
    message_id: str(r.message_id),
    transfer_id: str(r.transfer_id),
  }));
}

/** The accounts' channels whose balance is not the sum of their ledger entries (there should be none). */
export async function ledgerMismatches(
  t: Probed,
  accountIds: string[],
): Promise<Array<{ account_id: string; channel: string; balance: string; ledger: string }>> {
  return (await t.ds.query(
    `SELECT c.account_id, c.channel, c.balance, COALESCE(SUM(l.amount), 0) AS ledger
       FROM account_channels c
       LEFT JOIN ledger_entries l ON l.account_id = c.account_id AND l.channel = c.channel
      WHERE c.account_id IN (?)
      GROUP BY c.account_id, c.channel, c.balance
     HAVING c.balance <> ledger`,
    [accountIds],
  )) as Array<{ account_id: string; channel: string; balance: string; ledger: string }>;
}

/** How many ledger entries there are and their sum (e.g. { n: 3, total: '12.500000' }), of an account, a kind, a channel. */
export async function ledgerTotals(
  t: Probed,
  which: { accountId?: string; kind?: string; channel?: Channel },
): Promise<{ n: number; total: string }> {
  const filters = [
    ['account_id', which.accountId],
    ['kind', which.kind],
    ['channel', which.channel],
  ].filter(([, v]) => v !== undefined) as Array<[string, string]>;
  const [row] = (await t.ds.query(
    `SELECT COUNT(*) AS n, COALESCE(SUM(amount), 0) AS total FROM ledger_entries WHERE ${
      filters.map(([c]) => `${c} = ?`).join(' AND ') || '1 = 1'
    }`,
    filters.map(([, v]) => v),
  )) as Array<{ n: string | number; total: string }>;
  return { n: Number(row.n), total: String(row.total) };
}

/** The requests of an account charged more than once (there should be none). */
export async function requestsChargedTwice(t: Probed, accountId: string): Promise<string[]> {
  const charged = (await ledgerEntries(t, { accountId }, 'charge')).map((e) => e.send_request_id);
  return [...new Set(charged.filter((id, i) => charged.indexOf(id) !== i))] as string[];
}

/** How many idempotency keys an account holds. */
export async function idempotencyKeyCount(t: Probed, accountId: string): Promise<number> {
  return count(t, 'SELECT COUNT(*) AS n FROM idempotency_keys WHERE account_id = ?', [accountId]);
}

/** How many suppressions an account has for a recipient, on every channel. */
export async function suppressionCount(t: Probed, accountId: string, recipient: string): Promise<number> {
  return count(t, 'SELECT COUNT(*) AS n FROM suppressions WHERE account_id = ? AND recipient = ?', [
    accountId,
    recipient,
  ]);
}

/** The named columns of an account's inbound messages from the given senders, in arrival order. */
export async function inboundFrom<K extends string>(
  t: Probed,
  accountId: string,
  senders: string[],
  ...columns: K[]
): Promise<Array<Record<K, any>>> {
  const rows = (await t.ds.query(
    'SELECT * FROM inbound_messages WHERE account_id = ? AND sender IN (?) ORDER BY id',
    [accountId, senders],
  )) as Array<Record<string, any>>;
  return rows.map((r) => pick(r, columns, 'inbound message'));
}

const logs = (t: Probed) => `\`${t.name}_log\`.request_logs`;

/** The named columns of request-log rows (the log database) of a key, of a request id, or whose request id starts so; oldest first. */
export async function requestLogs<K extends string>(
  t: Probed,
  which: { keyId: string } | { requestId: string } | { requestIdPrefix: string },
  ...columns: K[]
): Promise<Array<Record<K, any>>> {
  const [where, param] =
    'keyId' in which
      ? ['api_key_id = ?', which.keyId]
      : 'requestId' in which
        ? ['request_id = ?', which.requestId]
        : ['request_id LIKE ?', `${which.requestIdPrefix}%`];
  const rows = (await t.ds.query(`SELECT * FROM ${logs(t)} WHERE ${where} ORDER BY id`, [param])) as Array<
    Record<string, any>
  >;
  return rows.map((r) => pick(r, columns, 'request log'));
}

/** How many request-log rows were written before a UTC DATETIME literal ('2026-01-01 00:00:00.000'). */
export async function requestLogsBefore(t: Probed, cutoff: string): Promise<number> {
  return count(t, `SELECT COUNT(*) AS n FROM ${logs(t)} WHERE created_at < ?`, [cutoff]);
}

/** How many request-log rows have a text (a recipient, say) in their path. */
export async function requestLogsWithPath(t: Probed, text: string): Promise<number> {
  return count(t, `SELECT COUNT(*) AS n FROM ${logs(t)} WHERE path LIKE ?`, [`%${text}%`]);
}

export interface LogSeed {
  api_key_id: string | number;
  method: string;
  path: string;
  status: number;
  request_id: string;
  /** A UTC DATETIME literal. */
  created_at: string;
}

/**
 * Writes request-log rows as the app's log writer would. A database migrated by the CLI alone
 * may not hold request_logs yet, so the table is created if missing, with the columns readers use.
 */
export async function addRequestLogs(t: Probed, rows: LogSeed[]): Promise<void> {
  await t.ds.query(`CREATE TABLE IF NOT EXISTS ${logs(t)} (
    id BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY, api_key_id BIGINT UNSIGNED, account_id BIGINT UNSIGNED,
    method VARCHAR(8), path VARCHAR(255), status SMALLINT, ip VARCHAR(45), user_agent VARCHAR(255),
    duration_ms INT, api_reference VARCHAR(19), request_id VARCHAR(64), created_at DATETIME(3))`);
  await t.ds.query(
    `INSERT INTO ${logs(t)} (api_key_id, method, path, status, request_id, created_at) VALUES ${rows
      .map(() => '(?, ?, ?, ?, ?, ?)')
      .join(', ')}`,
    rows.flatMap((r) => [r.api_key_id, r.method, r.path, r.status, r.request_id, r.created_at]),
  );
}
