import { randomUUID } from 'node:crypto';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CallbackStore } from '../../src/modules/callbacks/callback.store.js';
import {
  WebhookDeliveryStore,
  type PendingCopy,
} from '../../src/modules/callbacks/webhooks/webhook-delivery.store.js';
import { WebhookEndpointStore } from '../../src/modules/callbacks/webhooks/webhook-endpoint.store.js';
import { WebhookFanOut } from '../../src/modules/callbacks/webhooks/webhook-fan-out.service.js';
import { NOTIFICATION_DB } from '../../src/database/data-sources.js';
import { TENANT_MODULES, createTenant } from '../factories/account.factory.js';
import { ageWebhookDeliveries } from '../support/clock.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** The webhook delivery log (notification database), and the fan-out that writes it. */

let ctx: ServiceContext;
let store: WebhookDeliveryStore;
let notifications: DataSource;

const delivery = (webhookId: string, eventId = randomUUID()) => ({
  deliveryId: randomUUID(),
  eventId,
  webhookId,
  accountId: '7',
  type: 'message.delivered',
  envelope: '{}',
});

beforeAll(async () => {
  ctx = await startServices(TENANT_MODULES, [
    WebhookDeliveryStore,
    WebhookEndpointStore,
    WebhookFanOut,
    CallbackStore,
  ]);
  store = ctx.get(WebhookDeliveryStore);
  notifications = ctx.get<DataSource>(getDataSourceToken(NOTIFICATION_DB));
});
afterAll(() => ctx?.close());

describe('WebhookDeliveryStore', () => {
  it("records attempts on the endpoint's row of the event, and only there", async () => {
    const [w1, w2] = [randomUUID(), randomUUID()];
    const eventId = randomUUID();
    await store.insert([delivery(w1, eventId), delivery(w2, eventId)]);
    const next = new Date(Date.now() + 60_000);
    await store.attempted(eventId, w1, {
      httpStatus: 500,
      error: 'HTTP 500',
      delivered: false,
      nextAttemptAt: next,
    });
    await store.attempted(eventId, w1, {
      httpStatus: 204,
      error: null,
      delivered: true,
      nextAttemptAt: null,
    });
    expect(await store.get(w1, eventId)).toMatchObject({
      attempts: 2,
      last_status: 204,
      last_error: null,
      next_attempt_at: null,
      delivered_at: expect.any(Date),
    });
    expect(await store.get(w2, eventId)).toMatchObject({
      attempts: 0,
      last_attempt_at: null,
      delivered_at: null,
    });
  });

  it('pages newest first within the kept days, and prunes what is older', async () => {
    const w = randomUUID();
    const rows = [1, 2, 3].map(() => delivery(w));
    await store.insert(rows);
    const first = await store.page(w, null, 2);
    expect(first.map((r) => r.event_id)).toEqual([rows[2].eventId, rows[1].eventId]);
    expect((await store.page(w, first[1].id, 2)).map((r) => r.event_id)).toEqual([rows[0].eventId]);
    await ageWebhookDeliveries(ctx, [rows[0].deliveryId], 8);
    expect((await store.page(w, null, 10)).map((r) => r.event_id)).not.toContain(rows[0].eventId);
    expect(await store.get(w, rows[0].eventId)).toBeUndefined();
    expect(await store.prune()).toBeGreaterThanOrEqual(1);
    await store.removeEndpoint(w);
    expect(await store.page(w, null, 10)).toEqual([]);
  });
});

describe('WebhookDeliveryStore: recipient hashes', () => {
  it('gives rows logged without a recipient hash the hash of who their envelope names, and with `all` every row', async () => {
    const w = randomUUID();
    const message = {
      ...delivery(w),
      envelope: JSON.stringify({ type: 'message.sent', data: { recipient: '260971000009' } }),
    };
    const inbound = {
      ...delivery(w),
      envelope: JSON.stringify({ type: 'inbound.received', data: { from: '260971000008' } }),
    };
    await store.insert([message, inbound]);
    await notifications.query('UPDATE webhook_deliveries SET recipient_hash = NULL WHERE webhook_id = ?', [
      w,
    ]);
    expect(await store.hashRecipients(false)).toBe(2);
    const hashes = (await notifications.query(
      'SELECT HEX(recipient_hash) AS hash FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id',
      [w],
    )) as Array<{ hash: string }>;
    const hex = (r: string) => ctx.get(CallbackStore).recipientHash(r).toString('hex').toUpperCase();
    expect(hashes.map((h) => h.hash)).toEqual([hex('260971000009'), hex('260971000008')]);
    expect(await store.hashRecipients(false)).toBe(0);
    const [{ n }] = (await notifications.query('SELECT COUNT(*) AS n FROM webhook_deliveries')) as Array<{
      n: string;
    }>;
    expect(await store.hashRecipients(true)).toBe(Number(n));
  });
});

describe("WebhookDeliveryStore: copies owed by their event's job", () => {
  const pendingOf = async (ids: string[]) =>
    (
      (await notifications.query(
        'SELECT delivery_id FROM webhook_deliveries WHERE delivery_id IN (?) AND first_pending = 1',
        [ids],
      )) as Array<{ delivery_id: string }>
    ).map((r) => r.delivery_id);

  const idsOf = async (deliveryIds: string[]) =>
    (
      (await notifications.query('SELECT id FROM webhook_deliveries WHERE delivery_id IN (?) ORDER BY id', [
        deliveryIds,
      ])) as Array<{ id: string | number }>
    ).map((r) => String(r.id));

  it("lists a range's pending copies until each is taken, attempted or found not due", async () => {
    const w = randomUUID();
    const before = await store.lastId();
    const rows = [1, 2, 3, 4, 5].map(() => ({ ...delivery(w), pending: true, subjectId: '42' }));
    const done = { ...delivery(w), pending: false };
    await store.insert([...rows, done]);
    const last = await store.lastId();
    const ids = await idsOf([...rows, done].map((r) => r.deliveryId));
    expect(ids).toHaveLength(6);
    expect(ids[5]).toBe(last);
    expect((await store.pendingIn(before, last)).map((c) => c.delivery_id)).toEqual(
      rows.map((r) => r.deliveryId),
    );
    expect((await store.pendingIn(before, last))[0]).toMatchObject({
      event_id: rows[0].eventId,
      webhook_id: w,
      envelope: '{}',
    });
    expect(String((await store.pendingIn(before, last))[0]!.subject_id)).toBe('42');
    await store.taken([rows[0].deliveryId]);
    await store.attempted(rows[1].eventId, w, {
      httpStatus: 500,
      error: 'HTTP 500',
      delivered: false,
      nextAttemptAt: null,
    });
    await store.notDue(rows[2].eventId, w);
    expect(await pendingOf(rows.map((r) => r.deliveryId))).toEqual(
      expect.arrayContaining([rows[3].deliveryId, rows[4].deliveryId]),
    );
    expect(await pendingOf(rows.map((r) => r.deliveryId))).toHaveLength(2);
    // A batch of two rows from `before` ends at the second; fewer left than asked: at the end given.
    const end = await store.batchEnd(before, last, 2);
    expect(end).toBe(ids[1]);
    expect(await store.batchEnd(end, last, 100)).toBe(last);
    expect((await store.pendingIn(end, last)).map((c) => c.delivery_id)).toEqual([
      rows[3].deliveryId,
      rows[4].deliveryId,
    ]);
  });

  it('tells where rows older than a time end, and where the last hours begin', async () => {
    const w = randomUUID();
    const before = await store.lastId();
    const old = { ...delivery(w), pending: true };
    const fresh = { ...delivery(w), pending: true };
    await store.insert([old]);
    await ageWebhookDeliveries(ctx, [old.deliveryId], 1);
    await store.insert([fresh]);
    const [oldId, freshId] = await idsOf([old.deliveryId, fresh.deliveryId]);
    const since = new Date(Date.now() - 3600_000);
    expect(await store.skipTo(before, since)).toBe(oldId);
    expect(await store.skipTo(oldId!, since)).toBeNull();
    // The old row is outside the last hour, the fresh one within it (and within the last six).
    expect(BigInt(await store.idBefore(6))).toBeLessThanOrEqual(BigInt(before));
    expect(BigInt(await store.idBefore(1))).toBeLessThan(BigInt(freshId!));
  });
});

describe('WebhookFanOut', () => {
  it('writes one state change for 10 subscribed endpoints in one log statement, with no outbox row', async () => {
    const tenant = await createTenant(ctx);
    const owner = { accountId: tenant.account.id, testMode: false };
    const endpoints = ctx.get(WebhookEndpointStore);
    for (let i = 0; i < 10; i++)
      await endpoints.insert(
        owner,
        {
          uuid: randomUUID(),
          url: `https://hooks.example/${i}`,
          events: ['*'],
          description: null,
          secret: 's',
        },
        10,
      );
    // An endpoint of the test side hears nothing of a live event.
    await endpoints.insert(
      { ...owner, testMode: true },
      { uuid: randomUUID(), url: 'https://hooks.example/t', events: ['*'], description: null, secret: 's' },
      12,
    );
    const statements = vi.spyOn(notifications, 'query');
    const jobs = await ctx.get(WebhookFanOut).prepare([
      {
        accountId: owner.accountId,
        type: 'message.delivered',
        data: { recipient: '260971000001' },
        test: false,
        occurredAt: new Date(),
      },
    ]);
    const writes = statements.mock.calls.map(([sql]) =>
      String(sql).trim().split(/\s+/).slice(0, 4).join(' '),
    );
    statements.mockRestore();
    // One queue job for the event, its copies one per endpoint of the side, recorded by the log.
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.loggedOnly).toBe(true);
    expect(jobs[0]!.copies).toHaveLength(10);
    const ids = jobs[0]!.copies!.map((c) => c.deliveryId);
    expect(new Set(ids).size).toBe(10);
    expect(writes).toEqual(['INSERT INTO webhook_deliveries (delivery_id,']);
    const pending = (await notifications.query(
      'SELECT delivery_id, event_id, webhook_id, account_id, envelope, subject_id FROM webhook_deliveries WHERE delivery_id IN (?) AND first_pending = 1',
      [ids],
    )) as PendingCopy[];
    expect(pending).toHaveLength(10);
    // Each copy is logged with the keyed hash of who its envelope names, by which an erasure finds it.
    const hashes = (await notifications.query(
      'SELECT DISTINCT HEX(recipient_hash) AS hash FROM webhook_deliveries WHERE delivery_id IN (?)',
      [ids],
    )) as Array<{ hash: string }>;
    expect(hashes).toEqual([
      { hash: ctx.get(CallbackStore).recipientHash('260971000001').toString('hex').toUpperCase() },
    ]);
    // The sweep's job for copies not yet taken is the same job: same id, same envelope.
    const again = await ctx.get(WebhookFanOut).jobsOfPending(pending.slice(0, 4));
    expect(again).toHaveLength(1);
    expect(again[0]).toMatchObject({
      eventId: jobs[0]!.eventId,
      payload: jobs[0]!.payload,
      loggedOnly: true,
      accountId: String(owner.accountId),
    });
    expect(again[0]!.copies!.map((c) => c.deliveryId).sort()).toEqual(
      ids.filter((id) => pending.slice(0, 4).some((p) => p.delivery_id === id)).sort(),
    );
  });

  it("logs a disabled endpoint's copy as not pending, and queues nothing for it alone", async () => {
    const tenant = await createTenant(ctx);
    const owner = { accountId: tenant.account.id, testMode: false };
    const endpoints = ctx.get(WebhookEndpointStore);
    const uuid = randomUUID();
    await endpoints.insert(
      owner,
      { uuid, url: 'https://hooks.example/off', events: ['*'], description: null, secret: 's' },
      10,
    );
    await endpoints.update(owner, uuid, { status: 'disabled' });
    const jobs = await ctx
      .get(WebhookFanOut)
      .prepare([
        { accountId: owner.accountId, type: 'message.sent', data: {}, test: false, occurredAt: new Date() },
      ]);
    expect(jobs).toEqual([]);
    const rows = (await notifications.query(
      'SELECT first_pending FROM webhook_deliveries WHERE webhook_id = ?',
      [uuid],
    )) as Array<{ first_pending: number }>;
    expect(rows.map((r) => Number(r.first_pending))).toEqual([0]);
  });
});
