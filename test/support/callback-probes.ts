import { randomUUID } from 'node:crypto';
import type { CallbackJob } from '../../src/modules/callbacks/callback-job.js';
import type { MessageStatus } from '../../src/modules/messages/channel.js';
import { countOf, type Probed } from './message-probes.js';

/** Named reads of callback attempts and the callback outbox (the notification database), for e2e specs. */

const table = (t: Probed, name: string) => `\`${t.name}_notification\`.${name}`;

export interface AttemptRow {
  event_id: string;
  message_id: string;
  account_id: string;
  attempt: number;
  outcome: string;
  http_status: number | null;
  error: string | null;
}

/** Callback attempts, by event then attempt number: every one, or an account's, or a message's. */
export async function allCallbackAttempts(
  t: Probed,
  which?: { accountId: string } | { messageId: string },
): Promise<AttemptRow[]> {
  const [where, params]: [string, unknown[]] = !which
    ? ['', []]
    : 'accountId' in which
      ? [' WHERE account_id = ?', [which.accountId]]
      : [' WHERE message_id = ?', [which.messageId]];
  const rows = (await t.ds.query(
    `SELECT * FROM ${table(t, 'callback_attempts')}${where} ORDER BY event_id, attempt`,
    params,
  )) as Array<Record<string, any>>;
  return rows.map((r) => ({
    event_id: r.event_id,
    message_id: String(r.message_id),
    account_id: String(r.account_id),
    attempt: Number(r.attempt),
    outcome: r.outcome,
    http_status: r.http_status == null ? null : Number(r.http_status),
    error: r.error ?? null,
  }));
}

/** How many of an account's callback events were delivered. */
export async function deliveredCallbackEvents(t: Probed, accountId: string): Promise<number> {
  return countOf(
    t,
    `SELECT COUNT(DISTINCT event_id) AS n FROM ${table(t, 'callback_attempts')} WHERE account_id = ? AND outcome = 'delivered'`,
    [accountId],
  );
}

/** How many callbacks wait in the outbox: all of them, or only those not yet handed to the queue. */
export async function outboxCount(t: Probed, which: 'all' | 'unqueued' = 'all'): Promise<number> {
  return countOf(
    t,
    `SELECT COUNT(*) AS n FROM ${table(t, 'callback_outbox')}${which === 'unqueued' ? ' WHERE queued_at IS NULL' : ''}`,
  );
}

/** The status each kept but not yet queued callback event reports, in the order they were kept. */
export async function unqueuedStatuses(t: Probed): Promise<string[]> {
  const rows = (await t.ds.query(
    `SELECT job FROM ${table(t, 'callback_outbox')} WHERE queued_at IS NULL ORDER BY created_at, event_id`,
  )) as Array<{ job: string }>;
  return rows.map((r) => String((JSON.parse(r.job) as { payload?: { status?: string } }).payload?.status));
}

/** How many callbacks in the outbox carry a text (a recipient, say) in their job. */
export async function outboxHolding(t: Probed, text: string): Promise<number> {
  return countOf(t, `SELECT COUNT(*) AS n FROM ${table(t, 'callback_outbox')} WHERE job LIKE ?`, [
    `%${text}%`,
  ]);
}

/** Every kept event: who its payload names (recipient, or sender of an inbound event), its account, and its recipient hash in hex. */
export async function outboxEvents(
  t: Probed,
): Promise<Array<{ event_id: string; account_id: string; names: string; hash: string | null }>> {
  const rows = (await t.ds.query(
    `SELECT event_id, job, HEX(recipient_hash) AS hash FROM ${table(t, 'callback_outbox')} ORDER BY event_id`,
  )) as Array<{ event_id: string; job: string; hash: string | null }>;
  return rows.map((r) => {
    const job = JSON.parse(r.job) as { accountId: string; payload: { recipient?: string; from?: string } };
    return {
      event_id: r.event_id,
      account_id: job.accountId,
      names: job.payload.recipient ?? job.payload.from ?? '',
      hash: r.hash === null ? null : r.hash.toLowerCase(),
    };
  });
}

/** The webhook delivery log's rows whose envelope holds a text (a recipient, say): event, type, and whether delivered. */
export async function webhookDeliveriesHolding(
  t: Probed,
  text: string,
): Promise<Array<{ event_id: string; type: string; delivered: boolean }>> {
  const rows = (await t.ds.query(
    `SELECT event_id, type, delivered_at FROM ${table(t, 'webhook_deliveries')} WHERE envelope LIKE ? ORDER BY id`,
    [`%${text}%`],
  )) as Array<{ event_id: string; type: string; delivered_at: Date | null }>;
  return rows.map((r) => ({ event_id: r.event_id, type: r.type, delivered: r.delivered_at !== null }));
}

/** A message-event callback job to example.com, its own event and message ids; `over` replaces fields. */
export function callbackJob(
  over: Partial<CallbackJob> = {},
  status: MessageStatus = 'DELIVERED',
): CallbackJob {
  const eventId = randomUUID();
  return {
    eventId,
    url: 'https://example.com/cb',
    accountId: '7',
    messageRowId: '1796000000000000001',
    payload: {
      event_id: eventId,
      message_id: randomUUID(),
      api_reference: '1796000000000000000',
      user_reference_id: null,
      channel: 'sms',
      recipient: '260971000001',
      status,
      reason: null,
      occurred_at: '2030-01-01T00:00:00.000Z',
      test: false,
    },
    ...over,
  };
}
