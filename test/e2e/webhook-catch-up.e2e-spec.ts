import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTIFICATION_DB } from '../../src/database/data-sources.js';
import type { CommittedChange } from '../../src/modules/delivery/lifecycle/state-change.listener.js';
import { messageEventId } from '../../src/modules/callbacks/event-ids.js';
import { WebhookEvents } from '../../src/modules/callbacks/webhooks/webhook-events.service.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { startHttpPeer, type HttpPeer } from '../support/http-peer.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

interface Envelope {
  event_id: string;
  type: string;
  data: Record<string, unknown>;
}

/**
 * The process dies after a state change commits and before its events are kept: here the live
 * fan-out drops what it is told, as a process killed in those 50 ms would (the changes are
 * committed, nothing of their events is written anywhere).
 */
const crash = { on: false };
class CrashingWebhookEvents extends WebhookEvents {
  override async committed(changes: CommittedChange[]): Promise<void> {
    if (!crash.on) await super.committed(changes);
  }
}

/**
 * message.* events are delivered at least once whatever happens between a state change's commit
 * and its events being kept: the recovery sweep keeps from message_events what was not kept,
 * under the same event_id, and what was kept is neither logged nor sent twice.
 */
describe('webhook events after a crash', () => {
  let t: TestApp;
  let a: Tenant;
  let hooks: HttpPeer;
  let notifications: DataSource;

  beforeAll(async () => {
    hooks = await startHttpPeer(() => ({ status: 204 }));
    t = await startTestApp(
      {
        RUN_WORKERS: 'true',
        CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
        SANDBOX_DELIVERY_DELAY_MS: '50',
        SWEEP_INTERVAL_MS: '200',
        // Long enough for the live events to arrive before the sweep reaches their changes.
        EVENT_CATCH_UP_GRACE_MS: '2000',
      },
      undefined,
      { override: (b) => b.overrideProvider(WebhookEvents).useClass(CrashingWebhookEvents) },
    );
    notifications = t.app.get<DataSource>(getDataSourceToken(NOTIFICATION_DB));
    a = await createTenant(t);
    // The catch-up owes only what is recorded after its first round set its mark.
    await waitFor(
      async () => {
        const marks = (await notifications.query(
          "SELECT last_id FROM event_catch_up WHERE name = 'webhooks'",
        )) as unknown[];
        return marks.length ? true : null;
      },
      20_000,
      'the catch-up started',
    );
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await hooks?.close();
  });

  const subscribe = async (path: string) => {
    const made = await t
      .http()
      .post('/api/v1/json/webhooks')
      .set({ 'X-API-Key': a.key })
      .send({ url: `${hooks.url}${path}`, events: ['message.sent', 'message.delivered'] });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return made.body.webhook_id as string;
  };
  const sendSms = async (to: string) => {
    const sent = await t
      .http()
      .post('/api/v1/json/bulk/sms')
      .set({ 'X-API-Key': a.key })
      .send({ from: 'ACME', to, message: 'Hi' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const uuid = sent.body.data[0].message_id as string;
    const [row] = (await t.ds.query('SELECT id FROM messages WHERE uuid = ?', [uuid])) as Array<{
      id: string;
    }>;
    return { uuid, id: String(row.id) };
  };
  const delivered = (uuid: string) =>
    waitFor(
      async () => {
        const [row] = (await t.ds.query('SELECT status FROM messages WHERE uuid = ?', [uuid])) as Array<{
          status: string;
        }>;
        return row?.status === 'DELIVERED' ? true : null;
      },
      20_000,
      'the message DELIVERED',
    );
  const envelopes = (path: string) =>
    hooks.requests.filter((r) => r.path === path).map((r) => r.json as Envelope);
  const logRows = async (webhookId: string) =>
    (await notifications.query(
      'SELECT event_id, type FROM webhook_deliveries WHERE webhook_id = ? ORDER BY type',
      [webhookId],
    )) as Array<{ event_id: string; type: string }>;
  /** Until the sweep has gone past every state change recorded so far. */
  const sweptPastNow = async () => {
    const [{ id }] = (await t.ds.query('SELECT MAX(id) AS id FROM message_events')) as Array<{ id: string }>;
    await waitFor(
      async () => {
        const [mark] = (await notifications.query(
          "SELECT last_id FROM event_catch_up WHERE name = 'webhooks'",
        )) as Array<{ last_id: string }>;
        return mark && BigInt(mark.last_id) >= BigInt(id) ? true : null;
      },
      20_000,
      'the catch-up past the last state change',
    );
  };

  it('delivers the events of state changes whose live fan-out died, under the event ids the live path gives', async () => {
    const hook = await subscribe('/lost');
    crash.on = true;
    try {
      const m = await sendSms('260971230001');
      await delivered(m.uuid);
      await waitFor(
        async () => (envelopes('/lost').length >= 2 ? true : null),
        20_000,
        'message.sent and message.delivered kept by the sweep',
      );
      await sweptPastNow();
      const got = envelopes('/lost').sort((x, y) => x.type.localeCompare(y.type));
      expect(got.map((e) => [e.type, e.event_id])).toEqual([
        ['message.delivered', messageEventId(m.id, 'DELIVERED')],
        ['message.sent', messageEventId(m.id, 'SENT')],
      ]);
      expect(got[0].data).toMatchObject({
        event_id: messageEventId(m.id, 'DELIVERED'),
        message_id: m.uuid,
        status: 'DELIVERED',
        recipient: '260971230001',
      });
      expect((await logRows(hook)).map((r) => r.type)).toEqual(['message.delivered', 'message.sent']);
    } finally {
      crash.on = false;
    }
  });

  it('logs and sends an event kept live once, when the sweep has gone over its change too', async () => {
    const hook = await subscribe('/live');
    const m = await sendSms('260971230002');
    await delivered(m.uuid);
    await waitFor(async () => (envelopes('/live').length >= 2 ? true : null), 20_000, 'the live events');
    // The queue keeps only its last finished jobs, and the outbox forgets a delivered event: only
    // the delivery log tells the sweep that these were kept.
    await t.queue('callbacks').clean(0, 'completed');
    await sweptPastNow();
    // A round more: anything the sweep had queued has had its time to arrive.
    await new Promise((r) => setTimeout(r, 1000));
    const got = envelopes('/live');
    expect(got.map((e) => e.event_id).sort()).toEqual(
      [messageEventId(m.id, 'DELIVERED'), messageEventId(m.id, 'SENT')].sort(),
    );
    expect(await logRows(hook)).toEqual([
      { event_id: messageEventId(m.id, 'DELIVERED'), type: 'message.delivered' },
      { event_id: messageEventId(m.id, 'SENT'), type: 'message.sent' },
    ]);
  });
});
