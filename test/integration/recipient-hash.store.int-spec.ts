import { randomUUID } from 'node:crypto';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallbackStore } from '../../src/modules/callbacks/callback.store.js';
import type { CallbackJob } from '../../src/modules/callbacks/callback-job.js';
import { backfillRecipientHashes } from '../../src/modules/callbacks/recipient-hash.store.js';
import { WebhookDeliveryStore } from '../../src/modules/callbacks/webhooks/webhook-delivery.store.js';
import { NOTIFICATION_DB } from '../../src/database/data-sources.js';
import { TENANT_MODULES } from '../factories/account.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** The recipient hashes of the callback outbox and the webhook delivery log, given after the fact. */

let ctx: ServiceContext;
let notifications: DataSource;
let hash: (recipient: string) => Buffer;

/** More rows than one statement of the backfill takes (1,000), so it must page. */
const ROWS = 1_001;
const numberOf = (i: number) => `26097${String(1_000_000 + i)}`;

beforeAll(async () => {
  ctx = await startServices(TENANT_MODULES, [CallbackStore, WebhookDeliveryStore]);
  notifications = ctx.get<DataSource>(getDataSourceToken(NOTIFICATION_DB));
  const callbacks = ctx.get(CallbackStore);
  hash = (r) => callbacks.recipientHash(r);
});
afterAll(() => ctx?.close());

const job = (i: number): CallbackJob => ({
  eventId: randomUUID(),
  url: 'https://hooks.example.com/status',
  accountId: '7',
  messageRowId: String(i + 1),
  payload: {
    event_id: randomUUID(),
    message_id: randomUUID(),
    api_reference: randomUUID(),
    user_reference_id: null,
    channel: 'sms',
    recipient: numberOf(i),
    status: 'DELIVERED',
    reason: null,
    occurred_at: new Date().toISOString(),
    test: false,
  },
});

/** Each row's hash, against the hash of the number its text names. */
async function hashesOf(sql: string): Promise<Array<{ actual: string | null; expected: string }>> {
  const rows = (await notifications.query(sql)) as Array<{ hash: Buffer | null; recipient: string }>;
  return rows.map((r) => ({
    actual: r.hash ? Buffer.from(r.hash).toString('hex') : null,
    expected: hash(r.recipient).toString('hex'),
  }));
}

describe('backfillRecipientHashes', () => {
  it('gives every outbox event without a hash the hash of its recipient, page after page', async () => {
    await ctx.get(CallbackStore).keep(Array.from({ length: ROWS }, (_, i) => job(i)));
    await notifications.query('UPDATE callback_outbox SET recipient_hash = NULL');
    expect(await backfillRecipientHashes(notifications, 'callback_outbox', hash, false)).toBe(ROWS);
    const rows = await hashesOf(
      "SELECT recipient_hash AS hash, JSON_VALUE(job, '$.payload.recipient') AS recipient FROM callback_outbox",
    );
    expect(rows).toHaveLength(ROWS);
    expect(rows.filter((r) => r.actual !== r.expected)).toEqual([]);
    expect(await backfillRecipientHashes(notifications, 'callback_outbox', hash, false)).toBe(0);
    expect(await backfillRecipientHashes(notifications, 'callback_outbox', hash, true)).toBe(ROWS);
  });

  it('gives every logged webhook copy without a hash the hash of whom its envelope names', async () => {
    const webhookId = randomUUID();
    await ctx.get(WebhookDeliveryStore).insert(
      Array.from({ length: ROWS }, (_, i) => ({
        deliveryId: randomUUID(),
        eventId: randomUUID(),
        webhookId,
        accountId: '7',
        type: i % 2 ? 'inbound.received' : 'message.sent',
        envelope: JSON.stringify({
          type: i % 2 ? 'inbound.received' : 'message.sent',
          data: i % 2 ? { from: numberOf(i) } : { recipient: numberOf(i) },
        }),
        recipient: numberOf(i),
      })),
    );
    // Only half lack one: the others keep theirs, and are not counted.
    await notifications.query('UPDATE webhook_deliveries SET recipient_hash = NULL WHERE MOD(id, 2) = 0');
    const [{ n }] = (await notifications.query(
      'SELECT COUNT(*) AS n FROM webhook_deliveries WHERE recipient_hash IS NULL',
    )) as Array<{ n: string }>;
    expect(Number(n)).toBeGreaterThan(0);
    expect(await backfillRecipientHashes(notifications, 'webhook_deliveries', hash, false)).toBe(Number(n));
    const rows = await hashesOf(
      `SELECT recipient_hash AS hash,
              COALESCE(JSON_VALUE(envelope, '$.data.recipient'), JSON_VALUE(envelope, '$.data.from')) AS recipient
         FROM webhook_deliveries`,
    );
    expect(rows).toHaveLength(ROWS);
    expect(rows.filter((r) => r.actual !== r.expected)).toEqual([]);
    expect(await backfillRecipientHashes(notifications, 'webhook_deliveries', hash, true)).toBe(ROWS);
  });

  it('rehashes a logged verification event hashed as naming no one by its `to`, and leaves events that name no one', async () => {
    const webhookId = randomUUID();
    const logged = (type: string, data: object) => ({
      deliveryId: randomUUID(),
      eventId: randomUUID(),
      webhookId,
      accountId: '7',
      type,
      envelope: JSON.stringify({ type, data }),
      recipient: '', // as a version that did not read a verification's `to` hashed it
    });
    await ctx
      .get(WebhookDeliveryStore)
      .insert([
        logged('verification.failed', { to: '260971555001' }),
        logged('link.clicked', { link_id: 'abc' }),
      ]);
    expect(await backfillRecipientHashes(notifications, 'webhook_deliveries', hash, false)).toBe(1);
    const rows = (await notifications.query(
      'SELECT type, recipient_hash AS hash FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id',
      [webhookId],
    )) as Array<{ type: string; hash: Buffer }>;
    expect(rows.map((r) => [r.type, Buffer.from(r.hash).toString('hex')])).toEqual([
      ['verification.failed', hash('260971555001').toString('hex')],
      ['link.clicked', hash('').toString('hex')],
    ]);
    expect(await backfillRecipientHashes(notifications, 'webhook_deliveries', hash, false)).toBe(0);
  });
});
