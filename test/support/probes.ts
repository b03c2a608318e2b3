import type { INestApplicationContext } from '@nestjs/common';
import type { Queue } from 'bull';
import type { DataSource } from 'typeorm';
import type { LedgerKind } from '../../src/modules/balance/ledger.store.js';
import { AccountChannelStore } from '../../src/modules/balance/account-channel.store.js';
import type { Channel } from '../../src/modules/messages/channel.js';
import type { TestApp } from './test-app.js';

/** Named reads of what a request left behind, so specs say what they look at rather than how. */

/** What the probes read through: the app of an e2e spec, or the services of an integration spec. */
export interface Probed {
  ds: DataSource;
  app: Pick<INestApplicationContext, 'get'>;
}

export interface MessageRow {
  id: string;
  recipient: string;
  status: string;
  reason: string | null;
  units: number;
  cost: string;
}

/** The messages of one send request, in id order. */
export async function messagesOfRequest(t: Probed, sendRequestId: string): Promise<MessageRow[]> {
  return (await t.ds.query(
    'SELECT id, recipient, status, reason, units, cost FROM messages WHERE send_request_id = ? ORDER BY id',
    [sendRequestId],
  )) as MessageRow[];
}

/** How many send requests an account has, on one channel or on all. */
export async function sendRequestCount(t: Probed, accountId: string, channel?: Channel): Promise<number> {
  const [row] = (await t.ds.query(
    channel
      ? 'SELECT COUNT(*) AS n FROM send_requests WHERE account_id = ? AND channel = ?'
      : 'SELECT COUNT(*) AS n FROM send_requests WHERE account_id = ?',
    channel ? [accountId, channel] : [accountId],
  )) as Array<{ n: string | number }>;
  return Number(row.n);
}

/** The message ids one request's jobs wait with on a queue (not yet taken by a worker). */
export async function queuedForRequest(queue: Queue, sendRequestId: string): Promise<string[]> {
  return (await queue.getJobs(['waiting', 'delayed', 'paused']))
    .filter((j) => j.data.sendRequestId === sendRequestId)
    .flatMap((j) => j.data.messageIds as string[]);
}

/** An account's balance on a channel, as the database writes it (e.g. '9.850000'). */
export async function balanceOf(t: Probed, accountId: string, channel: Channel = 'sms'): Promise<string> {
  return (await t.app.get(AccountChannelStore).channel(accountId, channel)).balance;
}

/** The sum of an account's ledger on a channel (0 with no entries); it equals the balance. */
export async function ledgerSum(t: Probed, accountId: string, channel: Channel = 'sms'): Promise<string> {
  const [row] = (await t.ds.query(
    'SELECT COALESCE(SUM(amount), 0) AS s FROM ledger_entries WHERE account_id = ? AND channel = ?',
    [accountId, channel],
  )) as Array<{ s: string }>;
  return row.s;
}

/** The amounts of one request's ledger entries of a kind ('charge', 'refund'), e.g. ['1.000000']. */
export async function ledgerAmounts(t: Probed, sendRequestId: string, kind: LedgerKind): Promise<string[]> {
  const rows = (await t.ds.query(
    'SELECT amount FROM ledger_entries WHERE send_request_id = ? AND kind = ? ORDER BY id',
    [sendRequestId, kind],
  )) as Array<{ amount: string }>;
  return rows.map((r) => r.amount);
}

/** How many messages the accounts have, in every state. */
export async function messageCount(t: Probed, ...accountIds: string[]): Promise<number> {
  const [row] = (await t.ds.query('SELECT COUNT(*) AS n FROM messages WHERE account_id IN (?)', [
    accountIds,
  ])) as Array<{ n: string | number }>;
  return Number(row.n);
}

/** The states of one request's messages, in id order. */
export async function statusesOfRequest(t: Probed, sendRequestId: string): Promise<string[]> {
  return (await messagesOfRequest(t, sendRequestId)).map((r) => r.status);
}

export interface CallbackAttempt {
  attempt: number;
  outcome: string;
  http_status: number;
}

/** The callback attempts recorded for a message, oldest first (the notification database). */
export async function callbackAttempts(t: TestApp, messageId: string): Promise<CallbackAttempt[]> {
  return (await t.ds.query(
    `SELECT attempt, outcome, http_status FROM \`${t.name}_notification\`.callback_attempts
      WHERE message_id = ? ORDER BY id`,
    [messageId],
  )) as CallbackAttempt[];
}

/** The named columns of one send request's row as the database holds them; throws with no such row. */
export async function sendRequestFields<K extends string>(
  t: Probed,
  sendRequestId: string | undefined,
  ...columns: K[]
): Promise<Record<K, unknown>> {
  const [row] = (await t.ds.query('SELECT * FROM send_requests WHERE id = ?', [sendRequestId])) as Array<
    Record<string, unknown>
  >;
  if (!row) throw new Error(`no send request ${sendRequestId}`);
  return Object.fromEntries(columns.map((c) => [c, row[c]])) as Record<K, unknown>;
}

/** A send request's stored body with its bytes as the database holds them (hex, upper case) and their count. */
export async function storedBody(
  t: Probed,
  sendRequestId: string,
): Promise<{ body: string; hex: string; bytes: number }> {
  const [row] = (await t.ds.query(
    'SELECT body, HEX(body) AS hex, LENGTH(body) AS bytes FROM send_requests WHERE id = ?',
    [sendRequestId],
  )) as Array<{ body: string; hex: string; bytes: string | number }>;
  if (!row) throw new Error(`no send request ${sendRequestId}`);
  return { body: row.body, hex: row.hex, bytes: Number(row.bytes) };
}
