import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetricsService } from '../../src/modules/metrics/metrics.service.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import {
  allCallbackAttempts,
  deliveredCallbackEvents,
  outboxCount,
  unqueuedStatuses,
} from '../support/callback-probes.js';
import { startHttpPeer, type HttpPeer } from '../support/http-peer.js';
import { RedisInstance } from '../support/redis-instance.js';
import { startSmppPeer, type SmppPeer } from '../support/smpp-peer.js';
import { requestMessages } from '../support/message-probes.js';
import { startSmppApp, startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

const SMS = '/api/v1/json/bulk/sms';
const numbers = (n: number, base: number) =>
  Array.from({ length: n }, (_, i) => `26097${String(base + i).padStart(7, '0')}`);

describe('callback targets are isolated from one another', () => {
  let t: TestApp;
  let hanging: HttpPeer;
  let healthy: HttpPeer;
  let slowTenant: Tenant;
  let otherTenant: Tenant;

  beforeAll(async () => {
    // Accepts the request and never answers (until told otherwise below).
    hanging = await startHttpPeer(() => ({ status: 200, delayMs: 120_000 }));
    healthy = await startHttpPeer(() => ({ status: 200 }));
    t = await startTestApp({
      RUN_WORKERS: 'true',
      SANDBOX_DELIVERY_DELAY_MS: '100',
      CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
      CALLBACK_TIMEOUT_MS: '5000',
      CALLBACK_BACKOFF_BASE_MS: '500',
      CALLBACK_CIRCUIT_OPEN_MS: '2000',
    });
    slowTenant = await createTenant(t);
    otherTenant = await createTenant(t);
  });
  afterAll(async () => {
    await t?.close();
    await hanging?.close();
    await healthy?.close();
  });

  it("delivers a healthy target's callbacks while another target hangs on 200 events, and the hanging target's events still arrive once it answers", async () => {
    const slow = await t
      .http()
      .post(SMS)
      .set('X-API-Key', slowTenant.key)
      .send({
        from: 'ACME',
        to: numbers(100, 0),
        message: 'to a hanging hook',
        callback_url: `${hanging.url}/dlr`,
      });
    expect(slow.status).toBe(200);
    const started = Date.now();
    const other = await t
      .http()
      .post(SMS)
      .set('X-API-Key', otherTenant.key)
      .send({
        from: 'ACME',
        to: numbers(20, 1000),
        message: 'to a healthy hook',
        callback_url: `${healthy.url}/dlr`,
      });
    expect(other.status).toBe(200);

    // SENT and DELIVERED for each of the 20 messages. The deadline is generous (a loaded
    // machine); before targets were isolated, none of the 40 came within 90 s.
    const distinct = () =>
      new Set(healthy.requests.map((r) => (r.json as { event_id: string }).event_id)).size;
    await waitFor(async () => distinct() === 40, 40_000, "the healthy target's 40 callbacks").catch(
      (err: Error) => {
        throw new Error(`${err.message}; got ${distinct()}`);
      },
    );
    const healthyMs = Date.now() - started;
    const hangingSoFar = hanging.requests.length;

    const skipped = async () => {
      const { body } = await t.app.get(MetricsService).render();
      const line = body.split('\n').find((l) => l.startsWith('bulk_callback_held_total '));
      return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
    };
    // It keeps timing out until its circuit opens: its events are then held, not sent.
    await waitFor(async () => (await skipped()) > 0, 60_000, 'the hanging target’s circuit to open');
    // The hanging target recovers: every one of its events is delivered, within its retries.
    hanging.setHandler(() => ({ status: 200 }));
    const delivered = () => deliveredCallbackEvents(t, slowTenant.account.id);
    await waitFor(
      async () => (await delivered()) === 200,
      150_000,
      'all 200 events of the recovered target delivered',
    );
    const open = { n: await skipped() };
    console.info(
      `hanging target with 200 events: the healthy target's 40 callbacks arrived in ${healthyMs} ms ` +
        `(${hangingSoFar} calls reached the hanging target meanwhile, ${open.n} holds by its open circuit); all 200 delivered after it recovered`,
    );
  }, 240_000);
});

describe('callback circuits are per account and target', () => {
  let t: TestApp;
  let shared: HttpPeer;
  let failing = true;

  beforeAll(async () => {
    // One receiver shared by two tenants: tenant A's endpoint fails (until told otherwise), B's works.
    shared = await startHttpPeer((req) => ({ status: req.path.startsWith('/a') && failing ? 500 : 200 }));
    t = await startTestApp({
      RUN_WORKERS: 'true',
      SANDBOX_DELIVERY_DELAY_MS: '100',
      CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
      CALLBACK_BACKOFF_BASE_MS: '100',
      CALLBACK_CIRCUIT_OPEN_MS: '1000',
    });
  });
  afterAll(async () => {
    await t?.close();
    await shared?.close();
  });

  it("delivers one tenant's callbacks at their first attempt while another tenant's endpoint on the same receiver fails, and held events spend no attempts", async () => {
    const a = await createTenant(t);
    const b = await createTenant(t);
    const send = (tn: Tenant, base: number, path: string) =>
      t
        .http()
        .post(SMS)
        .set('X-API-Key', tn.key)
        .send({ from: 'ACME', to: numbers(10, base), message: 'hi', callback_url: `${shared.url}${path}` });
    expect((await send(a, 2000, '/a')).status).toBe(200);
    const rows = (tn: Tenant) => allCallbackAttempts(t, { accountId: tn.account.id });
    // A's endpoint fails until its circuit opens.
    await waitFor(
      async () => (await rows(a)).filter((r) => r.outcome === 'http_error').length >= 5,
      30_000,
      "A's circuit to open",
    );
    expect((await send(b, 3000, '/b')).status).toBe(200);
    await waitFor(
      async () => (await rows(b)).filter((r) => r.outcome === 'delivered').length === 20,
      30_000,
      "B's 20 callbacks",
    );
    // Every one of B's events went through at its first attempt: A's failures opened no circuit of B's.
    expect((await rows(b)).every((r) => r.outcome === 'delivered' && r.attempt === 1)).toBe(true);

    failing = false;
    await waitFor(
      async () =>
        new Set((await rows(a)).filter((r) => r.outcome === 'delivered').map((r) => r.event_id)).size === 20,
      60_000,
      "A's 20 callbacks once its endpoint recovers",
    );
    // An attempt is spent only by a request that reached the receiver: the rows of each event
    // number exactly the requests the receiver saw for it, and none says the circuit was open.
    const seen = new Map<string, number>();
    for (const r of shared.requests.filter((q) => q.path.startsWith('/a'))) {
      const id = (r.json as { event_id: string }).event_id;
      seen.set(id, (seen.get(id) ?? 0) + 1);
    }
    const aRows = await rows(a);
    expect(aRows.filter((r) => r.outcome === 'circuit_open')).toEqual([]);
    for (const [eventId, n] of seen) {
      const attempts = aRows.filter((r) => r.event_id === eventId).map((r) => r.attempt);
      expect(Math.max(...attempts)).toBe(n);
    }
  }, 150_000);
});

describe('a state change while Redis is away', () => {
  let redis: RedisInstance;
  let smsc: SmppPeer;
  let hooks: HttpPeer;
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    redis = await RedisInstance.start();
    smsc = await startSmppPeer({ autoReceipt: false });
    hooks = await startHttpPeer(() => ({ status: 200 }));
    t = await startSmppApp(smsc.url, {
      REDIS_URL: redis.url,
      SWEEP_INTERVAL_MS: '300',
      CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    tenant = await createTenant(t);
  });
  afterAll(async () => {
    await t?.close();
    await redis?.stop();
    await smsc?.close();
    await hooks?.close();
  });

  it('keeps its callback in MySQL and posts it once Redis is back', async () => {
    const res = await t
      .http()
      .post(SMS)
      .set('X-API-Key', tenant.key)
      .send({
        from: 'ACME',
        to: ['260973330001'],
        message: 'receipt while redis is away',
        callback_url: `${hooks.url}/dlr`,
      });
    expect(res.status).toBe(200);
    const statusOf = async () => (await requestMessages(t, res.body.api_reference, 'status'))[0]?.status;
    await waitFor(async () => (await statusOf()) === 'SENT', 15_000, 'SENT');
    await waitFor(async () => hooks.requests.length === 1, 15_000, 'the SENT callback');
    // The outbox marks rows queued in batches: wait until the SENT callback's row is marked, so
    // the only row left unqueued below is the one written while Redis is away.
    await waitFor(
      async () => (await outboxCount(t, 'unqueued')) === 0,
      15_000,
      'the SENT callback marked queued',
    );

    await redis.stop();
    expect(await smsc.sendReceipt(smsc.received[0].messageId, 'DELIVRD')).toBe(0);
    await waitFor(async () => (await statusOf()) === 'DELIVERED', 15_000, 'DELIVERED while Redis is away');
    // The DELIVERED event is kept, unqueued, once (the list names any other event left there).
    const kept = await waitFor(
      async () => {
        const statuses = await unqueuedStatuses(t);
        return statuses.includes('DELIVERED') ? statuses : null;
      },
      5_000,
      'the DELIVERED callback kept',
    );
    expect(
      kept.filter((s) => s === 'DELIVERED'),
      `unqueued: ${kept.join(', ')}`,
    ).toHaveLength(1);
    await redis.start(); // empty
    const delivered = await waitFor(
      async () => hooks.requests.find((r) => (r.json as { status?: string })?.status === 'DELIVERED'),
      20_000,
      'the DELIVERED callback after Redis returned',
    );
    expect((delivered.json as { message_id: string }).message_id).toBe(res.body.data[0].message_id);
    // Delivered events leave the outbox.
    await waitFor(async () => (await outboxCount(t)) === 0, 10_000, 'the outbox emptied');
  });
});

describe('callbacks held by an open circuit are held for CALLBACK_MAX_HOLD_MS at most', () => {
  let t: TestApp;
  let dead: HttpPeer;

  beforeAll(async () => {
    // A target that fails for good: its circuit opens and each probe fails again.
    dead = await startHttpPeer(() => ({ status: 503 }));
    t = await startTestApp({
      RUN_WORKERS: 'true',
      SANDBOX_DELIVERY_DELAY_MS: '100',
      CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
      CALLBACK_BACKOFF_BASE_MS: '100',
      CALLBACK_CIRCUIT_OPEN_MS: '500',
      CALLBACK_MAX_HOLD_MS: '3000',
    });
  });
  afterAll(async () => {
    await t?.close();
    await dead?.close();
  });

  it('drops an event held past the maximum, counts it, and keeps nothing of it queued or kept', async () => {
    const a = await createTenant(t);
    const sent = await t
      .http()
      .post(SMS)
      .set('X-API-Key', a.key)
      .send({ from: 'ACME', to: numbers(10, 5000), message: 'hi', callback_url: `${dead.url}/dlr` });
    expect(sent.status).toBe(200);
    const expired = async () => {
      const { body } = await t.app.get(MetricsService).render();
      const line = body
        .split('\n')
        .find((l) => l.startsWith('bulk_callback_attempts_total{outcome="hold_expired"}'));
      return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
    };
    await waitFor(async () => (await expired()) > 0, 60_000, 'a held event to be dropped');
    // Every event ends: delivered never, dropped once held too long (or out of attempts), so the
    // queue and the outbox empty instead of parking the events for ever.
    await waitFor(
      async () => {
        const c = await t.queue('callbacks').getJobCounts();
        return c.waiting + c.delayed + c.active === 0 && (await outboxCount(t)) === 0 ? true : null;
      },
      60_000,
      'the held events to be done with',
    );
    // Held events were not attempted: far fewer requests reached the target than 10 attempts per event.
    const events = new Set(dead.requests.map((r) => (r.json as { event_id: string }).event_id));
    expect(dead.requests.length).toBeLessThan(events.size * 10);
    expect(await expired()).toBeGreaterThan(0);
  }, 150_000);
});
