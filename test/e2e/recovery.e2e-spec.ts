import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { startHttpPeer, type HttpPeer } from '../support/http-peer.js';
import { RedisInstance } from '../support/redis-instance.js';
import { startSmppPeer, type SmppPeer } from '../support/smpp-peer.js';
import { startSmppApp, startTestApp, uniqueName, type TestApp } from '../support/test-app.js';
import { waitFor, waitWhileProgressing } from '../support/wait.js';
import { workerPool } from '../support/worker-process.js';
import { statesOfRequests } from '../support/account-messages.js';
import { outboxCount } from '../support/callback-probes.js';
import { eventsOfRequests, notEnqueued, requestMessages } from '../support/message-probes.js';
import { balanceOf, ledgerAmounts } from '../support/probes.js';
import { reportsWithStatus } from '../support/receipt-probes.js';

/**
 * Nothing stranded: queued jobs lost with Redis (a restart without persistence, a flush, a
 * failover to a lagging replica) are found from MySQL and queued again. Each suite runs on a
 * Redis of its own, so stopping it touches no other suite.
 */

const SMS = '/api/v1/json/bulk/sms';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const numbers = (n: number, base: number) =>
  Array.from({ length: n }, (_, i) => `26097${String(base + i).padStart(7, '0')}`);

describe('Redis lost, and back empty, during dispatch', () => {
  const REQUESTS = 10;
  const PER_REQUEST = 300;
  const CONCURRENCY = 2;
  const PRIORITY_CONCURRENCY = 1;
  let redis: RedisInstance;
  let smsc: SmppPeer;
  let hooks: HttpPeer;
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    redis = await RedisInstance.start();
    smsc = await startSmppPeer({ autoReceipt: 'DELIVRD', receiptDelayMs: 20 });
    hooks = await startHttpPeer(() => ({ status: 200 }));
    t = await startSmppApp(smsc.url, {
      REDIS_URL: redis.url,
      // Slow enough that most messages are still queued when Redis goes.
      SMPP_TPS: '400',
      SMS_CONCURRENCY: String(CONCURRENCY),
      PRIORITY_CONCURRENCY: String(PRIORITY_CONCURRENCY),
      SWEEP_INTERVAL_MS: '500',
      SWEEP_STRANDED_AFTER_MS: '3000',
      CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
      // The subject here is the Redis loss, not target isolation: on a loaded machine the one
      // callback target answers slowly and would be held to the per-target limit.
      CALLBACK_TARGET_CONCURRENCY: '16',
    });
    tenant = await createTenant(t, { balances: { sms: '100000' }, prices: { sms: '1' } });
  });
  afterAll(async () => {
    await t?.close();
    await redis?.stop();
    await smsc?.close();
    await hooks?.close();
  });

  it('hands every accepted message to the SMSC after Redis comes back empty, repeating none beyond the jobs in hand at the loss', async () => {
    const to = Array.from({ length: REQUESTS }, (_, k) => numbers(PER_REQUEST, k * 1000));
    const refs: string[] = [];
    for (const [k, list] of to.entries()) {
      const res = await t
        .http()
        .post(SMS)
        .set('X-API-Key', tenant.key)
        .send({
          from: 'ACME',
          to: list,
          message: `lost queue ${k}`,
          ...(k % 2 ? {} : { callback_url: `${hooks.url}/dlr` }),
          // Two requests on the priority queue: its jobs are lost with Redis as the others are.
          ...(k % 5 === 1 ? { priority: 'high' } : {}),
        });
      expect(res.status).toBe(200);
      refs.push(res.body.api_reference);
    }
    const total = REQUESTS * PER_REQUEST;
    await waitFor(async () => smsc.received.length >= 300, 20_000, 'dispatch under way');
    await redis.stop();
    const atLoss = smsc.received.length;
    await sleep(2000);
    await redis.start(); // empty: no persistence, every queued job is gone

    const final = await waitFor(
      async () => {
        const s = await statesOfRequests(t, refs);
        return (s.DELIVERED ?? 0) === total ? s : undefined;
      },
      90_000,
      `all ${total} messages DELIVERED`,
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}; states now ${JSON.stringify(await statesOfRequests(t, refs))}`);
    });
    expect(final).toEqual({ DELIVERED: total });
    const counts = to.flat().map((n) => smsc.countByDestination(n));
    expect(counts.filter((c) => c === 0)).toEqual([]);
    const repeated = counts.filter((c) => c > 1).length;
    // Only a job a worker held when Redis went can overlap with its requeued copy: at most
    // SMS_CONCURRENCY + PRIORITY_CONCURRENCY jobs of 200 messages, and in practice none (the
    // sweep waits for the request to stop progressing before it requeues).
    expect(repeated).toBeLessThanOrEqual((CONCURRENCY + PRIORITY_CONCURRENCY) * 200);

    // Every state change of the requests that named a callback_url (half of them) reaches the
    // target, those whose event was queued in the lost Redis included. (A receipt may overtake the record of SENT: such a message has no SENT event.)
    const changes = (
      await eventsOfRequests(
        t,
        refs.filter((_, k) => k % 2 === 0),
      )
    ).filter((e) => e.status !== 'ACKNOWLEDGED');
    const expected = new Set(changes.map((c) => `${c.uuid} ${c.status}`));
    const seen = () =>
      new Set(
        hooks.requests
          .map((r) => r.json as { message_id: string; status: string })
          .map((j) => `${j.message_id} ${j.status}`),
      );
    // One set per look, not one per expected event: 3,000 sets of up to 3,000 strings on every
    // poll kept this process, which runs the app and the target too, from answering callbacks.
    const missing = () => {
      const got = seen();
      return [...expected].filter((e) => !got.has(e));
    };
    // Thousands of callbacks from the test's own process: on a loaded machine they take minutes,
    // so the wait lasts while events keep arriving and fails once none has come for 30 s.
    await waitWhileProgressing(
      async () => missing().length === 0,
      () => seen().size,
      {
        stallMs: 30_000,
        maxMs: 300_000,
        what: `all ${expected.size} callback events`,
      },
    ).catch(async (err: Error) => {
      const outbox = { n: await outboxCount(t), unqueued: await outboxCount(t, 'unqueued') };
      const counts = await t.queue('callbacks').getJobCounts();
      throw new Error(
        `${err.message}; missing ${missing().length}: ${missing().slice(0, 2).join(', ')}; outbox ${JSON.stringify(outbox)}; queue ${JSON.stringify(counts)}`,
      );
    });
    console.info(
      `Redis lost during dispatch: ${total} accepted, ${atLoss} sent before the loss, ${total} delivered, 0 lost, ${repeated} sent twice; ` +
        `callbacks: all ${expected.size} events delivered (${hooks.requests.length - expected.size} repeats)`,
    );
  }, 480_000);
});

describe('a message whose receipt never comes', () => {
  let smsc: SmppPeer;
  let hooks: HttpPeer;
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    smsc = await startSmppPeer({ autoReceipt: false });
    hooks = await startHttpPeer(() => ({ status: 200 }));
    t = await startSmppApp(smsc.url, {
      RECEIPT_WAIT: '2s',
      SWEEP_INTERVAL_MS: '300',
      CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    tenant = await createTenant(t, { balances: { sms: '10' }, prices: { sms: '1' } });
  });
  afterAll(async () => {
    await t?.close();
    await smsc?.close();
    await hooks?.close();
  });

  it('ends EXPIRED, reason NO_RECEIPT, after RECEIPT_WAIT, with a callback, not refunded; a receipt arriving later changes nothing', async () => {
    const to = ['260971110001', '260971110002', '260971110003'];
    const res = await t
      .http()
      .post(SMS)
      .set('X-API-Key', tenant.key)
      .send({ from: 'ACME', to, message: 'no receipt', callback_url: `${hooks.url}/dlr` });
    expect(res.status).toBe(200);
    const ref = res.body.api_reference as string;
    await waitFor(async () => (await statesOfRequests(t, [ref])).SENT === 3, 15_000, 'all SENT');
    await waitFor(async () => (await statesOfRequests(t, [ref])).EXPIRED === 3, 15_000, 'all EXPIRED');
    const rows = await requestMessages(t, ref, 'uuid', 'reason', 'completed_at', 'sent_at');
    for (const r of rows) {
      expect(r.reason).toBe('NO_RECEIPT');
      expect(new Date(r.completed_at).getTime() - new Date(r.sent_at).getTime()).toBeGreaterThanOrEqual(2000);
    }
    const expired = await waitFor(
      async () => {
        const list = hooks.requests
          .map((q) => q.json as { status: string; reason: string; message_id: string })
          .filter((j) => j?.status === 'EXPIRED');
        return list.length === 3 ? list : undefined;
      },
      15_000,
      'three EXPIRED callbacks',
    );
    expect(expired.map((j) => j.reason)).toEqual(['NO_RECEIPT', 'NO_RECEIPT', 'NO_RECEIPT']);
    expect(expired.map((j) => j.message_id).sort()).toEqual(rows.map((r: { uuid: string }) => r.uuid).sort());
    expect(await ledgerAmounts(t, ref, 'refund')).toHaveLength(0);
    expect(await balanceOf(t, tenant.account.id, 'sms')).toBe('7.000000');

    // The provider's verdict after all: stored with the other reports, the message stays EXPIRED.
    const status = await smsc.sendReceipt(
      smsc.received.find((r) => r.destination === to[0])!.messageId,
      'DELIVRD',
    );
    expect(status).toBe(0);
    await waitFor(
      async () => (await reportsWithStatus(t, 'DELIVERED')) === 1,
      10_000,
      'the late receipt stored',
    );
    expect(await statesOfRequests(t, [ref])).toEqual({ EXPIRED: 3 });
  });
});

describe('sends while Redis is down', () => {
  let redis: RedisInstance;
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    redis = await RedisInstance.start();
    t = await startTestApp({ REDIS_URL: redis.url });
    tenant = await createTenant(t);
  });
  afterAll(async () => {
    await t?.close();
    await redis?.stop();
  });

  it('are answered from MySQL without waiting for Redis: stored, charged, left for the sweep to queue', async () => {
    await redis.stop();
    await sleep(300); // the clients notice the closed connection
    const latencies: number[] = [];
    const refs: string[] = [];
    for (let k = 0; k < 5; k++) {
      const started = Date.now();
      const res = await t
        .http()
        .post(SMS)
        .set('X-API-Key', tenant.key)
        .send({ from: 'ACME', to: [`26097222000${k}`], message: `redis away ${k}` });
      latencies.push(Date.now() - started);
      expect(res.status).toBe(200);
      refs.push(res.body.api_reference);
    }
    expect(await notEnqueued(t, refs)).toBe(5);
    console.info(`send latency with Redis down (ms): ${latencies.join(', ')}`);
    await redis.start(); // for the clean-up of the suite's queue keys
  });
});

describe('a worker killed in the middle of a job', () => {
  const LOCK_MS = 3000;
  const name = uniqueName();
  let smsc: SmppPeer;
  let t: TestApp;
  let tenant: Tenant;
  const workers = workerPool(name, () => ({
    SMS_TRANSPORT: 'smpp',
    SMPP_URL: smsc.url,
    SMS_CONCURRENCY: '1',
    QUEUE_LOCK_MS: String(LOCK_MS),
    SMPP_TPS: '50',
    DISPATCH_SLICE: '10',
  }));

  beforeAll(async () => {
    smsc = await startSmppPeer({ autoReceipt: false });
    t = await startTestApp({ QUEUE_LOCK_MS: String(LOCK_MS) }, name);
    tenant = await createTenant(t);
  });
  afterAll(async () => {
    workers.killAll();
    await t?.close();
    await smsc?.close();
  });

  it('has its job taken over by another worker within about QUEUE_LOCK_MS, repeating at most the slice in flight', async () => {
    const to = numbers(150, 500_000);
    const res = await t
      .http()
      .post(SMS)
      .set('X-API-Key', tenant.key)
      .send({ from: 'ACME', to, message: 'takeover' });
    expect(res.status).toBe(200);
    const first = workers.start();
    await waitFor(async () => smsc.received.length >= 20, 30_000, 'first worker under way');
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const killedAt = Date.now();
    const seenAtKill = smsc.received.length;
    expect(seenAtKill).toBeLessThan(150);
    workers.start(); // a replacement, at once: it finds the job still locked by the dead one
    await waitFor(async () => smsc.received.length > seenAtKill, 60_000, 'the job resumed');
    const takeoverMs = smsc.received[seenAtKill].at - killedAt;
    await waitFor(
      async () => (await statesOfRequests(t, [res.body.api_reference])).SENT === 150,
      60_000,
      'all SENT',
    );
    const repeated = to.filter((n) => smsc.countByDestination(n) > 1).length;
    expect(to.filter((n) => smsc.countByDestination(n) === 0)).toEqual([]);
    expect(repeated).toBeLessThanOrEqual(10); // DISPATCH_SLICE
    console.info(
      `worker killed mid-job with QUEUE_LOCK_MS=${LOCK_MS}: resumed by another worker after ${takeoverMs} ms; ${repeated} message(s) sent twice`,
    );
  }, 120_000);
});
