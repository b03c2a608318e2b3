import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_CONFIG, type AppConfig } from '../../src/config/config.js';
import { NOTIFICATION_DB } from '../../src/database/data-sources.js';
import type { CallbackJob } from '../../src/modules/callbacks/callback-job.js';
import { CallbackOutbox } from '../../src/modules/callbacks/callback.outbox.js';
import type { CommittedChange } from '../../src/modules/delivery/lifecycle/state-change.listener.js';
import { messageEventId } from '../../src/modules/callbacks/event-ids.js';
import {
  WebhookEvents,
  type AcceptedSend,
} from '../../src/modules/callbacks/webhooks/webhook-events.service.js';
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
 * The process dies after a state change or a send commits and before its events are kept: here
 * the live fan-out drops what it is told, as a process killed in those moments would (the rows
 * are committed, nothing of their events is written anywhere).
 */
const crash = { on: false };
class CrashingWebhookEvents extends WebhookEvents {
  override async committed(changes: CommittedChange[]): Promise<void> {
    if (!crash.on) await super.committed(changes);
  }

  override async accepted(send: AcceptedSend): Promise<void> {
    if (!crash.on) await super.accepted(send);
  }
}

/**
 * The process dies after a fresh event's log rows are written and before its job reaches the
 * queue: here the queuing of jobs recorded by the log alone drops them.
 */
const dropJobs = { on: false };
class DroppingOutbox extends CallbackOutbox {
  override async queueLogged(jobs: CallbackJob[]): Promise<void> {
    if (!dropJobs.on) await super.queueLogged(jobs);
  }
}

/**
 * message.* events are delivered at least once whatever happens between a state change's (or a
 * send's) commit and its events being kept: the recovery sweep keeps from message_events (and
 * messages) what was not kept, under the same event_id, and what was kept is neither logged nor
 * sent twice.
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
      {
        override: (b) =>
          b
            .overrideProvider(WebhookEvents)
            .useClass(CrashingWebhookEvents)
            .overrideProvider(CallbackOutbox)
            .useClass(DroppingOutbox),
      },
    );
    notifications = t.app.get<DataSource>(getDataSourceToken(NOTIFICATION_DB));
    a = await createTenant(t);
    // The catch-ups owe only what is recorded after their first round set their marks.
    await waitFor(
      async () => {
        const marks = (await notifications.query(
          "SELECT last_id FROM event_catch_up WHERE name IN ('webhooks', 'webhook-sends', 'webhook-jobs')",
        )) as unknown[];
        return marks.length === 3 ? true : null;
      },
      20_000,
      'the catch-up started',
    );
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await hooks?.close();
  });

  const subscribe = async (path: string, events = ['message.sent', 'message.delivered']) => {
    const made = await t
      .http()
      .post('/api/v1/json/webhooks')
      .set({ 'X-API-Key': a.key })
      .send({ url: `${hooks.url}${path}`, events });
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
  /** Until the sweep has gone past every state change (or message) recorded so far. */
  const sweptPastNow = async (table = 'message_events', name = 'webhooks') => {
    const [{ id }] = (await t.ds.query(`SELECT MAX(id) AS id FROM ${table}`)) as Array<{ id: string }>;
    await waitFor(
      async () => {
        const [mark] = (await notifications.query('SELECT last_id FROM event_catch_up WHERE name = ?', [
          name,
        ])) as Array<{ last_id: string }>;
        return mark && BigInt(mark.last_id) >= BigInt(id) ? true : null;
      },
      20_000,
      `the catch-up past the last row of ${table}`,
    );
  };
  const sendsSweptPastNow = () => sweptPastNow('messages', 'webhook-sends');
  const jobsSweptPastNow = async () => {
    const [{ id }] = (await notifications.query('SELECT MAX(id) AS id FROM webhook_deliveries')) as Array<{
      id: string;
    }>;
    await waitFor(
      async () => {
        const [mark] = (await notifications.query(
          "SELECT last_id FROM event_catch_up WHERE name = 'webhook-jobs'",
        )) as Array<{ last_id: string }>;
        return mark && BigInt(mark.last_id) >= BigInt(id) ? true : null;
      },
      20_000,
      'the job catch-up past the last row of webhook_deliveries',
    );
  };
  /** Until `n` events have reached the path. */
  const arrived = (path: string, n: number, what: string) =>
    waitFor(async () => (envelopes(path).length >= n ? true : null), 20_000, what);
  /** The event ids that reached the path, sorted. */
  const eventIdsAt = (path: string) =>
    envelopes(path)
      .map((e) => e.event_id)
      .sort();
  const copiesOf = async (webhookId: string) =>
    (
      (await notifications.query(
        'SELECT attempts, first_pending FROM webhook_deliveries WHERE webhook_id = ? ORDER BY type',
        [webhookId],
      )) as Array<{ attempts: number; first_pending: number }>
    ).map((r) => [Number(r.attempts), Number(r.first_pending)]);
  /** A send to a number and a suppressed one: the first accepted, the second rejected. */
  const sendWithRejected = async (to: string, suppressed: string) => {
    const blocked = await t
      .http()
      .post('/api/v1/json/suppressions')
      .set({ 'X-API-Key': a.key })
      .send({ channel: 'sms', recipients: [suppressed] });
    expect(blocked.status, JSON.stringify(blocked.body)).toBe(200);
    const sent = await t
      .http()
      .post('/api/v1/json/bulk/sms')
      .set({ 'X-API-Key': a.key })
      .send({ from: 'ACME', to: [to, suppressed], message: 'Hi' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const rows = (await t.ds.query(
      'SELECT id, uuid, recipient FROM messages WHERE send_request_id = ? ORDER BY id',
      [sent.body.api_reference],
    )) as Array<{ id: string; uuid: string; recipient: string }>;
    const of = (n: string) => rows.find((r) => r.recipient === n)!;
    return {
      accepted: { ...of(to), id: String(of(to).id) },
      rejected: { ...of(suppressed), id: String(of(suppressed).id) },
    };
  };
  const acceptanceEvents = ['message.accepted', 'message.scheduled', 'message.rejected'];

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

  it("delivers a send's message.accepted and message.rejected whose live publication died, once, under the live ids", async () => {
    const hook = await subscribe('/sends-lost', acceptanceEvents);
    crash.on = true;
    let sent: Awaited<ReturnType<typeof sendWithRejected>>;
    try {
      sent = await sendWithRejected('260971230003', '260971230004');
      await waitFor(
        async () => (envelopes('/sends-lost').length >= 2 ? true : null),
        20_000,
        'message.accepted and message.rejected kept by the sweep',
      );
    } finally {
      crash.on = false;
    }
    await sendsSweptPastNow();
    await new Promise((r) => setTimeout(r, 1000));
    const got = envelopes('/sends-lost').sort((x, y) => x.type.localeCompare(y.type));
    expect(got.map((e) => [e.type, e.event_id])).toEqual([
      ['message.accepted', messageEventId(sent.accepted.id, 'ACKNOWLEDGED')],
      ['message.rejected', messageEventId(sent.rejected.id, 'REJECTED')],
    ]);
    expect(got[0].data).toMatchObject({
      message_id: sent.accepted.uuid,
      status: 'ACKNOWLEDGED',
      recipient: '260971230003',
      reason: null,
    });
    expect(got[1].data).toMatchObject({
      message_id: sent.rejected.uuid,
      status: 'REJECTED',
      recipient: '260971230004',
      reason: 'SUPPRESSED',
    });
    expect((await logRows(hook)).map((r) => r.type)).toEqual(['message.accepted', 'message.rejected']);
  });

  it("logs and sends a send's events kept live once, when the sweep has gone over its messages too", async () => {
    const hook = await subscribe('/sends-live', acceptanceEvents);
    const sent = await sendWithRejected('260971230005', '260971230006');
    await waitFor(
      async () => (envelopes('/sends-live').length >= 2 ? true : null),
      20_000,
      'the live events',
    );
    await t.queue('callbacks').clean(0, 'completed');
    await sendsSweptPastNow();
    await new Promise((r) => setTimeout(r, 1000));
    expect(
      envelopes('/sends-live')
        .map((e) => e.event_id)
        .sort(),
    ).toEqual(
      [messageEventId(sent.accepted.id, 'ACKNOWLEDGED'), messageEventId(sent.rejected.id, 'REJECTED')].sort(),
    );
    expect((await logRows(hook)).map((r) => r.type)).toEqual(['message.accepted', 'message.rejected']);
  });

  it("queues a fresh event's job that never reached the queue, once, from its log rows", async () => {
    const hook = await subscribe('/unqueued');
    dropJobs.on = true;
    let m: Awaited<ReturnType<typeof sendSms>>;
    try {
      m = await sendSms('260971230007');
      await delivered(m.uuid);
      await waitFor(
        async () => ((await logRows(hook)).length === 2 ? true : null),
        20_000,
        'both events logged, their jobs dropped',
      );
    } finally {
      dropJobs.on = false;
    }
    expect(await copiesOf(hook)).toEqual([
      [0, 1],
      [0, 1],
    ]);
    await arrived('/unqueued', 2, 'the events queued by the sweep');
    await jobsSweptPastNow();
    // A round more: anything the sweep had queued again has had its time to arrive.
    await new Promise((r) => setTimeout(r, 1000));
    expect(eventIdsAt('/unqueued')).toEqual(
      [messageEventId(m.id, 'DELIVERED'), messageEventId(m.id, 'SENT')].sort(),
    );
    expect(await copiesOf(hook)).toEqual([
      [1, 0],
      [1, 0],
    ]);
  });

  it('puts back the jobs of copies not yet taken when the queue lost its data', async () => {
    const hook = await subscribe('/queue-lost');
    const m = await sendSms('260971230008');
    await delivered(m.uuid);
    await arrived('/queue-lost', 2, 'the live events');
    await jobsSweptPastNow();
    // As if both jobs had been on the queue, not yet taken, when Redis lost its data (the marker
    // key goes with it); the sweep that notices puts them back.
    await notifications.query('UPDATE webhook_deliveries SET first_pending = 1 WHERE webhook_id = ?', [hook]);
    await t.queue('callbacks').clean(0, 'completed');
    await t
      .queue('callbacks')
      .client.del(`${t.app.get<AppConfig>(APP_CONFIG).queuePrefix}:callbacks:outbox-epoch`);
    await arrived('/queue-lost', 4, 'the events queued again');
    const ids = [messageEventId(m.id, 'DELIVERED'), messageEventId(m.id, 'SENT')];
    expect(eventIdsAt('/queue-lost')).toEqual([...ids, ...ids].sort());
    expect((await copiesOf(hook)).map(([, pending]) => pending)).toEqual([0, 0]);
  });
});
