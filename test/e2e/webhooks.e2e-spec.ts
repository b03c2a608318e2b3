import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyCallback } from '../../src/modules/callbacks/signature.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { webhookFailingFor } from '../support/clock.js';
import { startHttpPeer, type HttpPeer, type PeerRequest } from '../support/http-peer.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

interface Envelope {
  event_id: string;
  type: string;
  occurred_at: string;
  test: boolean;
  data: Record<string, unknown>;
}

/**
 * Event subscriptions from the outside: endpoints over HTTP, message and inbound events POSTed,
 * signed with each endpoint's own secret, the delivery log, replays, and an endpoint disabled
 * after failing for WEBHOOK_DISABLE_AFTER_HOURS, with the workers running in the app.
 */
describe('webhook endpoints', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  let hooks: HttpPeer;
  let failing = true;
  let down = true;

  beforeAll(async () => {
    hooks = await startHttpPeer((req) =>
      (req.path.startsWith('/flaky') && failing) || (req.path.startsWith('/down') && down)
        ? { status: 500 }
        : { status: 204 },
    );
    t = await startTestApp({
      RUN_WORKERS: 'true',
      CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
      SANDBOX_DELIVERY_DELAY_MS: '50',
      CALLBACK_BACKOFF_BASE_MS: '100',
      CALLBACK_CIRCUIT_OPEN_MS: '100',
      WEBHOOK_DISABLE_AFTER_HOURS: '1',
    });
    a = await createTenant(t, { test: true });
    b = await createTenant(t);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await hooks?.close();
  });

  const as = (key: string) => ({ 'X-API-Key': key });
  const create = (key: string, body: object) =>
    t.http().post('/api/v1/json/webhooks').set(as(key)).send(body);
  const sendSms = (key: string, to: string) =>
    t.http().post('/api/v1/json/bulk/sms').set(as(key)).send({ from: 'ACME', to, message: 'Hi' });
  const at = (path: string) => hooks.requests.filter((r) => r.path === path);
  const envelopes = (path: string) => at(path).map((r) => r.json as Envelope);
  const signedBy = (secret: string, r: PeerRequest) =>
    verifyCallback(
      secret,
      String(r.headers['x-signature-timestamp']),
      String(r.headers['x-signature']),
      r.body,
    );

  it('creates, shows (secret once), lists, changes and deletes an endpoint', async () => {
    const made = await create(a.key, {
      url: `${hooks.url}/crud`,
      events: ['message.sent'],
      description: 'CRM',
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({
      url: `${hooks.url}/crud`,
      events: ['message.sent'],
      description: 'CRM',
      status: 'enabled',
      disabled_reason: null,
    });
    expect(made.body.secret).toMatch(/^whsec_[0-9a-f]{48}$/);
    const id = made.body.webhook_id as string;
    const shown = await t.http().get(`/api/v1/json/webhooks/${id}`).set(as(a.key));
    expect(shown.status).toBe(200);
    expect(shown.body.secret).toBeUndefined();
    const listed = await t.http().get('/api/v1/json/webhooks').set(as(a.key));
    expect(listed.body.webhooks.map((w: { webhook_id: string }) => w.webhook_id)).toContain(id);
    const changed = await t
      .http()
      .patch(`/api/v1/json/webhooks/${id}`)
      .set(as(a.key))
      .send({ events: ['*'], description: null, status: 'disabled' });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({ events: ['*'], description: null, status: 'disabled' });
    const rotated = await t.http().post(`/api/v1/json/webhooks/${id}/rotate-secret`).set(as(a.key));
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(made.body.secret);
    const gone = await t.http().delete(`/api/v1/json/webhooks/${id}`).set(as(a.key));
    expect(gone.body).toEqual({ webhook_id: id, deleted: true });
    expect((await t.http().get(`/api/v1/json/webhooks/${id}`).set(as(a.key))).status).toBe(404);
  });

  it('refuses unknown event types, unknown fields and non-http URLs with a 400', async () => {
    const bad = [
      await create(a.key, { url: `${hooks.url}/x`, events: ['message.read'] }),
      await create(a.key, { url: `${hooks.url}/x`, events: ['*'], secret: 'mine' }),
      await create(a.key, { url: `${hooks.url}/x`, events: [] }),
      await create(a.key, { url: 'ftp://hooks.acme.example/x', events: ['*'] }),
    ];
    expect(bad.map((r) => r.status)).toEqual([400, 400, 400, 400]);
    expect(bad.map((r) => r.body.error.code)).toEqual([
      'VALIDATION_ERROR',
      'VALIDATION_ERROR',
      'VALIDATION_ERROR',
      'INVALID_CALLBACK_URL',
    ]);
    expect(bad[3].body.error.details[0].field).toBe('url');
    const made = await create(a.key, { url: `${hooks.url}/x`, events: ['*'] });
    const nulled = await t
      .http()
      .patch(`/api/v1/json/webhooks/${made.body.webhook_id}`)
      .set(as(a.key))
      .send({ url: null, events: null });
    expect(nulled.status).toBe(400);
    expect(nulled.body.error.details.map((d: { field: string }) => d.field)).toEqual(['url', 'events']);
    await t.http().delete(`/api/v1/json/webhooks/${made.body.webhook_id}`).set(as(a.key));
  });

  it('allows 10 endpoints per account and answers the eleventh 409 WEBHOOK_LIMIT_REACHED', async () => {
    const c = await createTenant(t);
    const made = await Promise.all(
      Array.from({ length: 11 }, (_, i) => create(c.key, { url: `${hooks.url}/many/${i}`, events: ['*'] })),
    );
    expect(made.filter((r) => r.status === 201)).toHaveLength(10);
    const refused = made.find((r) => r.status !== 201)!;
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('WEBHOOK_LIMIT_REACHED');
  });

  it("answers another tenant's endpoint 404 on every route", async () => {
    const made = await create(a.key, { url: `${hooks.url}/mine`, events: ['*'] });
    const id = made.body.webhook_id as string;
    const base = `/api/v1/json/webhooks/${id}`;
    const answers = [
      await t.http().get(base).set(as(b.key)),
      await t.http().patch(base).set(as(b.key)).send({ status: 'disabled' }),
      await t.http().delete(base).set(as(b.key)),
      await t.http().post(`${base}/rotate-secret`).set(as(b.key)),
      await t.http().post(`${base}/test`).set(as(b.key)),
      await t.http().get(`${base}/deliveries`).set(as(b.key)),
      await t.http().post(`${base}/deliveries/${id}/replay`).set(as(b.key)),
      // The account's own test key sees the test side only.
      await t.http().get(base).set(as(a.test!.key)),
    ];
    expect(answers.map((r) => r.status)).toEqual([404, 404, 404, 404, 404, 404, 404, 404]);
    expect(answers[0].body.error.code).toBe('NOT_FOUND');
    expect((await t.http().get(base).set(as(a.key))).body.status).toBe('enabled');
    await t.http().delete(base).set(as(a.key));
  });

  it("posts each message state to the endpoints subscribed to its type, signed with each one's secret", async () => {
    const all = await create(a.key, { url: `${hooks.url}/all`, events: ['*'] });
    const some = await create(a.key, { url: `${hooks.url}/delivered`, events: ['message.delivered'] });
    const sent = await sendSms(a.key, '260971234567');
    expect(sent.status).toBe(200);
    const messageId = sent.body.data[0].message_id as string;
    await waitFor(async () => (at('/delivered').length ? true : null), 20_000, 'message.delivered event');
    await waitFor(async () => (at('/all').length >= 3 ? true : null), 20_000, 'three events at /all');
    expect(
      envelopes('/all')
        .map((e) => e.type)
        .sort(),
    ).toEqual(['message.accepted', 'message.delivered', 'message.sent']);
    const delivered = envelopes('/delivered');
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toMatchObject({
      type: 'message.delivered',
      test: false,
      data: { message_id: messageId, status: 'DELIVERED', recipient: '260971234567', channel: 'sms' },
    });
    // One event, one event_id, whichever endpoint it reaches.
    expect(envelopes('/all').find((e) => e.type === 'message.delivered')!.event_id).toBe(
      delivered[0].event_id,
    );
    for (const r of at('/all')) expect(signedBy(all.body.secret, r)).toBe(true);
    expect(signedBy(some.body.secret, at('/delivered')[0])).toBe(true);
    expect(signedBy(all.body.secret, at('/delivered')[0])).toBe(false);
    // The log records the attempt once the endpoint's answer is in, a moment after the endpoint saw it.
    const log = await waitFor(
      async () => {
        const r = await t
          .http()
          .get(`/api/v1/json/webhooks/${some.body.webhook_id}/deliveries`)
          .set(as(a.key));
        return r.body.data?.[0]?.delivered_at ? r : null;
      },
      10_000,
      'the delivery logged',
    );
    expect(log.body.data).toEqual([
      expect.objectContaining({
        event_id: delivered[0].event_id,
        type: 'message.delivered',
        attempts: 1,
        last_status: 204,
        next_attempt_at: null,
        delivered_at: expect.any(String),
      }),
    ]);
    for (const w of [all, some])
      await t.http().delete(`/api/v1/json/webhooks/${w.body.webhook_id}`).set(as(a.key));
  });

  it("retries one endpoint's copy of an event without posting it again to the endpoint that took it", async () => {
    const c = await createTenant(t);
    const ok = await create(c.key, { url: `${hooks.url}/ok`, events: ['message.delivered'] });
    const failed = await create(c.key, { url: `${hooks.url}/down`, events: ['message.delivered'] });
    const log = async (w: typeof ok) =>
      (await t.http().get(`/api/v1/json/webhooks/${w.body.webhook_id}/deliveries`).set(as(c.key))).body
        .data as Array<Record<string, any>>;
    await sendSms(c.key, '260971234570');
    await waitFor(
      async () => ((await log(failed))[0]?.attempts >= 2 ? true : null),
      20_000,
      'two failed attempts at /down',
    );
    down = false;
    const delivered = await waitFor(
      async () => ((await log(failed))[0]?.delivered_at ? (await log(failed))[0] : null),
      20_000,
      'the copy for /down delivered',
    );
    expect(delivered.attempts).toBeGreaterThanOrEqual(3);
    expect(await log(ok)).toEqual([expect.objectContaining({ attempts: 1, last_status: 204 })]);
    expect(at('/ok')).toHaveLength(1);
    const ids = new Set(envelopes('/down').map((e) => e.event_id));
    expect(ids).toEqual(new Set([envelopes('/ok')[0].event_id]));
    // Every attempt at a copy names the same copy.
    expect(new Set(at('/down').map((r) => r.headers['x-event-id'])).size).toBe(1);
    expect(at('/down')[0].headers['x-event-id']).not.toBe(at('/ok')[0].headers['x-event-id']);
  });

  it('posts message.scheduled and message.rejected when a send is accepted', async () => {
    const w = await create(a.key, {
      url: `${hooks.url}/accepted`,
      events: ['message.scheduled', 'message.rejected'],
    });
    const blocked = await t
      .http()
      .post('/api/v1/json/suppressions')
      .set(as(a.key))
      .send({ channel: 'sms', recipients: ['260971234999'] });
    expect(blocked.status).toBe(200);
    const later = new Date(Date.now() + 3600_000).toISOString();
    const sent = await t
      .http()
      .post('/api/v1/json/bulk/sms')
      .set(as(a.key))
      .send({ from: 'ACME', to: ['260971234567', '260971234999'], message: 'Later', send_at: later });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const events = await waitFor(
      async () => (at('/accepted').length >= 2 ? envelopes('/accepted') : null),
      20_000,
      'the acceptance events',
    );
    expect(events.map((e) => [e.type, e.data.recipient, e.data.status]).sort()).toEqual([
      ['message.rejected', '260971234999', 'REJECTED'],
      ['message.scheduled', '260971234567', 'SCHEDULED'],
    ]);
    expect(events.find((e) => e.type === 'message.rejected')!.data.reason).toBe('SUPPRESSED');
    await t.http().delete(`/api/v1/json/webhooks/${w.body.webhook_id}`).set(as(a.key));
  });

  it("gives a test key's events, marked test, to the test side's endpoints only, inbound.received included", async () => {
    const live = await create(a.key, { url: `${hooks.url}/live-side`, events: ['*'] });
    const test = await create(a.test!.key, { url: `${hooks.url}/test-side`, events: ['*'] });
    expect(test.status).toBe(201);
    // A number ending 0004: delivered, then an inbound STOP from it.
    const sent = await sendSms(a.test!.key, '260971230004');
    expect(sent.status).toBe(200);
    // Events come at least once and in no set order: the STOP's may come before the delivery's.
    const has = (type: string) => envelopes('/test-side').some((e) => e.type === type);
    await waitFor(
      async () => (has('inbound.received') && has('message.delivered') ? true : null),
      30_000,
      'inbound.received and message.delivered on the test side',
    );
    const events = envelopes('/test-side');
    expect(events.every((e) => e.test === true)).toBe(true);
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['message.delivered', 'inbound.received']),
    );
    expect(events.find((e) => e.type === 'inbound.received')!.data).toMatchObject({
      type: 'inbound.sms',
      from: '260971230004',
      keyword: 'STOP',
      test: true,
    });
    expect(at('/live-side')).toHaveLength(0);
    for (const [key, w] of [
      [a.key, live],
      [a.test!.key, test],
    ] as const)
      await t.http().delete(`/api/v1/json/webhooks/${w.body.webhook_id}`).set(as(key));
  });

  it('sends a webhook.test event at once and answers what the endpoint answered', async () => {
    const w = await create(a.key, { url: `${hooks.url}/ping`, events: ['link.clicked'] });
    const res = await t.http().post(`/api/v1/json/webhooks/${w.body.webhook_id}/test`).set(as(a.key));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ delivered: true, http_status: 204, error: null });
    expect(res.body.took_ms).toEqual(expect.any(Number));
    const got = at('/ping');
    expect(got).toHaveLength(1);
    expect(got[0].json).toMatchObject({ event_id: res.body.event_id, type: 'webhook.test' });
    expect(signedBy(w.body.secret, got[0])).toBe(true);
    await t.http().delete(`/api/v1/json/webhooks/${w.body.webhook_id}`).set(as(a.key));
  });

  it('logs the attempts of a failing endpoint, disables it at the configured hours, and replays what it missed once enabled', async () => {
    const w = await create(b.key, { url: `${hooks.url}/flaky`, events: ['message.delivered'] });
    const id = w.body.webhook_id as string;
    const log = async () =>
      (await t.http().get(`/api/v1/json/webhooks/${id}/deliveries`).set(as(b.key))).body.data as Array<
        Record<string, any>
      >;
    await sendSms(b.key, '260971234568');
    const failed = await waitFor(
      async () => {
        const rows = await log();
        return rows[0]?.attempts >= 2 ? rows[0] : null;
      },
      20_000,
      'two failed attempts',
    );
    expect(failed).toMatchObject({
      last_status: 500,
      delivered_at: null,
      next_attempt_at: expect.any(String),
    });
    // Failing for less than the hour: still enabled.
    await webhookFailingFor(t, id, 0.9);
    await waitFor(
      async () => ((await log())[0].attempts > failed.attempts ? true : null),
      20_000,
      'another attempt',
    );
    expect((await t.http().get(`/api/v1/json/webhooks/${id}`).set(as(b.key))).body.status).toBe('enabled');
    // Failing for over the hour: the next failed attempt disables it.
    await webhookFailingFor(t, id, 1.1);
    const disabled = await waitFor(
      async () => {
        const res = await t.http().get(`/api/v1/json/webhooks/${id}`).set(as(b.key));
        return res.body.status === 'disabled' ? res.body : null;
      },
      20_000,
      'the endpoint disabled',
    );
    expect(disabled.disabled_reason).toMatch(/no attempt answered with 2xx for 1 hour/);
    const metrics = await t.http().get('/metrics');
    expect(metrics.text).toMatch(/^bulk_webhook_endpoints_disabled_total 1$/m);
    // While disabled, a new event is logged but not sent.
    const before = at('/flaky').length;
    await sendSms(b.key, '260971234569');
    const missed = await waitFor(
      async () => {
        const rows = await log();
        return rows.length >= 2 ? rows[0] : null;
      },
      20_000,
      'the missed event logged',
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(at('/flaky').length).toBe(before);
    expect((await log())[0]).toMatchObject({ event_id: missed.event_id, attempts: 0, delivered_at: null });
    const refused = await t
      .http()
      .post(`/api/v1/json/webhooks/${id}/deliveries/${missed.event_id}/replay`)
      .set(as(b.key));
    expect(refused.status).toBe(400);
    // Enabled again, the endpoint healthy: the missed event is replayed with its event_id.
    failing = false;
    const enabled = await t
      .http()
      .patch(`/api/v1/json/webhooks/${id}`)
      .set(as(b.key))
      .send({ status: 'enabled' });
    expect(enabled.body).toMatchObject({ status: 'enabled', disabled_reason: null });
    const replay = await t
      .http()
      .post(`/api/v1/json/webhooks/${id}/deliveries/${missed.event_id}/replay`)
      .set(as(b.key));
    expect(replay.status).toBe(200);
    const row = await waitFor(
      async () => {
        const r = (await log()).find((x) => x.event_id === missed.event_id);
        return r?.delivered_at ? r : null;
      },
      20_000,
      'the replay delivered',
    );
    expect(row).toMatchObject({ attempts: 1, last_status: 204 });
    expect(envelopes('/flaky').filter((e) => e.event_id === missed.event_id)).toHaveLength(1);
  });

  it('pages the delivery log with a cursor', async () => {
    const w = await create(a.key, { url: `${hooks.url}/paged`, events: ['link.clicked'] });
    const id = w.body.webhook_id as string;
    for (let i = 0; i < 3; i++) await t.http().post(`/api/v1/json/webhooks/${id}/test`).set(as(a.key));
    const first = await t.http().get(`/api/v1/json/webhooks/${id}/deliveries?limit=2`).set(as(a.key));
    expect(first.body.data).toHaveLength(2);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await t
      .http()
      .get(`/api/v1/json/webhooks/${id}/deliveries?limit=2&cursor=${first.body.next_cursor}`)
      .set(as(a.key));
    expect(second.body.data).toHaveLength(1);
    expect(second.body.next_cursor).toBeNull();
    const bad = await t.http().get(`/api/v1/json/webhooks/${id}/deliveries?cursor=abc`).set(as(a.key));
    expect(bad.status).toBe(400);
  });
});
