import { randomUUID } from 'node:crypto';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CallbackStore } from '../../src/modules/callbacks/callback.store.js';
import { WebhookDeliveryStore } from '../../src/modules/callbacks/webhooks/webhook-delivery.store.js';
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

describe('WebhookFanOut', () => {
  it('writes one state change for 10 subscribed endpoints in one log statement and one outbox statement', async () => {
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
    await ctx.get(CallbackStore).keep(jobs);
    const writes = statements.mock.calls.map(([sql]) =>
      String(sql).trim().split(/\s+/).slice(0, 4).join(' '),
    );
    statements.mockRestore();
    // One outbox job for the event, its copies one per endpoint of the side.
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.copies).toHaveLength(10);
    expect(new Set(jobs[0]!.copies!.map((c) => c.deliveryId)).size).toBe(10);
    expect(writes).toEqual([
      'INSERT INTO webhook_deliveries (delivery_id,',
      'INSERT IGNORE INTO callback_outbox',
    ]);
  });
});
