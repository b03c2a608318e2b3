import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { freePort } from '../support/local-state.js';
import { RedisInstance } from '../support/redis-instance.js';
import { startSmppPeer, type SmppPeer } from '../support/smpp-peer.js';
import { eventsOfRequests, triedAndWaiting } from '../support/message-probes.js';
import { storeProblems } from '../support/store-invariants.js';
import { startSmppApp, startTestApp, uniqueName, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { startWorkerProcess } from '../support/worker-process.js';
import { statesOfRequests } from '../support/account-messages.js';

/**
 * MySQL is the truth for schedules: a restart of every process across send_at, a worker killed
 * while the due messages are in its hands, and Redis flushed (before send_at and while the
 * released messages are queued) delay a due message; none is lost and none is sent twice.
 * Each suite has a Redis of its own, so stopping or flushing it touches no other suite.
 */

const SMS = '/api/v1/json/bulk/sms';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const numbers = (n: number, base: number) =>
  Array.from({ length: n }, (_, i) => `26096${String(base + i).padStart(7, '0')}`);

const handedOver = (s: Record<string, number>) => (s.SENT ?? 0) + (s.DELIVERED ?? 0);

async function schedule(t: TestApp, tenant: Tenant, lists: string[][], sendAt: string): Promise<string[]> {
  const refs: string[] = [];
  for (const to of lists) {
    const res = await t
      .http()
      .post(SMS)
      .set('X-API-Key', tenant.key)
      .send({ from: 'ACME', to, message: 'due later', send_at: sendAt });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.send_at).toBe(sendAt);
    refs.push(res.body.api_reference);
  }
  return refs;
}

/** Every number handed to the SMSC exactly once, and not before send_at. */
function expectOnceEach(smsc: SmppPeer, to: string[], sendAt: string): void {
  const counts = to.map((n) => smsc.countByDestination(n));
  expect(counts.filter((c) => c === 0).length, 'lost').toBe(0);
  expect(counts.filter((c) => c > 1).length, 'sent twice').toBe(0);
  const first = Math.min(...smsc.received.filter((r) => to.includes(r.destination)).map((r) => r.at));
  expect(first).toBeGreaterThanOrEqual(Date.parse(sendAt));
}

async function expectLedgerWhole(t: TestApp): Promise<void> {
  expect(await storeProblems(t)).toEqual([]);
}

describe('every process restarted across send_at (API, worker and Redis, which comes back empty)', () => {
  const name = uniqueName();
  let redis: RedisInstance;
  let smsc: SmppPeer;
  let t: TestApp | undefined;
  let tenant: Tenant;
  const workers: ChildProcess[] = [];
  const env = () => ({ REDIS_URL: redis.url, SCHEDULE_POLL_MS: '100' });
  const startWorker = () => {
    const w = startWorkerProcess(name, { ...env(), SMS_TRANSPORT: 'smpp', SMPP_URL: smsc.url });
    workers.push(w);
    return w;
  };

  beforeAll(async () => {
    redis = await RedisInstance.start();
    smsc = await startSmppPeer({ autoReceipt: false });
    t = await startTestApp({ ...env(), RUN_WORKERS: 'false' }, name);
    tenant = await createTenant(t, { balances: { sms: '1000' }, prices: { sms: '0.1' } });
  });
  afterAll(async () => {
    for (const w of workers) w.kill('SIGKILL');
    await t?.close();
    await redis?.stop();
    await smsc?.close();
  });

  it('hands every message over once after the restart, none before send_at, none lost, none twice', async () => {
    const lists = [numbers(100, 0), numbers(100, 1000), numbers(100, 2000)];
    const first = startWorker();
    const sendAt = new Date(Date.now() + 8000).toISOString();
    const refs = await schedule(t!, tenant, lists, sendAt);
    // Everything goes down before send_at: the worker killed outright, the API closed, Redis stopped.
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    await t!.app.close();
    t = undefined;
    await redis.stop();
    await sleep(Math.max(0, Date.parse(sendAt) - Date.now()) + 2000);
    expect(smsc.received.length).toBe(0);

    await redis.start(); // empty
    t = await startTestApp({ ...env(), RUN_WORKERS: 'false' }, name);
    expect(await statesOfRequests(t, refs)).toEqual({ SCHEDULED: 300 });
    startWorker();
    const total = lists.flat().length;
    await waitFor(
      async () => handedOver(await statesOfRequests(t!, refs)) === total,
      60_000,
      'all handed over',
    );
    expectOnceEach(smsc, lists.flat(), sendAt);
    await expectLedgerWhole(t);
  }, 120_000);
});

describe('a worker killed (SIGKILL) while the due messages are in its hands', () => {
  const name = uniqueName();
  const LOCK_MS = 3000;
  let smsc: SmppPeer;
  let t: TestApp;
  let tenant: Tenant;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    smsc = await startSmppPeer({ autoReceipt: false });
    t = await startTestApp({ RUN_WORKERS: 'false', QUEUE_LOCK_MS: String(LOCK_MS) }, name);
    tenant = await createTenant(t, { balances: { sms: '1000' }, prices: { sms: '0.1' } });
  });
  afterAll(async () => {
    for (const w of workers) w.kill('SIGKILL');
    await t?.close();
    await smsc?.close();
  });

  it('leaves them to another worker: released once, handed over once each, none lost', async () => {
    // The first worker releases the due messages and takes their jobs, but cannot reach its SMSC
    // (nothing listens on its port), so it is still holding them when it is killed.
    const deadPort = await freePort();
    const common = { SCHEDULE_POLL_MS: '100', QUEUE_LOCK_MS: String(LOCK_MS) };
    const first = startWorkerProcess(name, {
      ...common,
      SMS_TRANSPORT: 'smpp',
      SMPP_URL: `smpp://test:secret@127.0.0.1:${deadPort}`,
    });
    workers.push(first);
    const lists = [numbers(200, 5000), numbers(200, 6000)];
    const sendAt = new Date(Date.now() + 6000).toISOString();
    const refs = await schedule(t, tenant, lists, sendAt);
    await waitFor(
      async () => (await triedAndWaiting(t, refs)) > 0,
      30_000,
      'released and tried by the first worker',
    );
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    workers.push(startWorkerProcess(name, { ...common, SMS_TRANSPORT: 'smpp', SMPP_URL: smsc.url }));
    const total = lists.flat().length;
    await waitFor(
      async () => handedOver(await statesOfRequests(t, refs)) === total,
      90_000,
      'all handed over',
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}; states now ${JSON.stringify(await statesOfRequests(t, refs))}`);
    });
    expectOnceEach(smsc, lists.flat(), sendAt);
    const acknowledged = (await eventsOfRequests(t, refs)).filter((e) => e.status === 'ACKNOWLEDGED');
    expect(acknowledged.length).toBe(total); // released exactly once
    await expectLedgerWhole(t);
  }, 150_000);
});

describe('Redis flushed before send_at and again while the released messages are queued', () => {
  let redis: RedisInstance;
  let smsc: SmppPeer;
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    redis = await RedisInstance.start();
    smsc = await startSmppPeer({ autoReceipt: false });
    t = await startSmppApp(smsc.url, {
      REDIS_URL: redis.url,
      // Slow enough that most released messages are still queued at the second flush.
      SMPP_TPS: '200',
      SMS_CONCURRENCY: '2',
      DISPATCH_SLICE: '10',
      SCHEDULE_POLL_MS: '100',
      SWEEP_INTERVAL_MS: '500',
      SWEEP_STRANDED_AFTER_MS: '3000',
    });
    tenant = await createTenant(t, { balances: { sms: '1000' }, prices: { sms: '0.1' } });
  });
  afterAll(async () => {
    await t?.close();
    await redis?.stop();
    await smsc?.close();
  });

  it('hands every message over once: the schedule is read from MySQL, lost jobs are queued again', async () => {
    const flush = async () => {
      const r = new Redis(redis.url);
      await r.flushall();
      r.disconnect();
    };
    const lists = [numbers(200, 8000), numbers(200, 9000), numbers(200, 10_000)];
    const sendAt = new Date(Date.now() + 6000).toISOString();
    const refs = await schedule(t, tenant, lists, sendAt);
    await flush();
    await waitFor(async () => smsc.received.length >= 50, 30_000, 'dispatch under way');
    await flush();
    const atFlush = smsc.received.length;
    const total = lists.flat().length;
    await waitFor(
      async () => handedOver(await statesOfRequests(t, refs)) === total,
      90_000,
      'all handed over',
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}; states now ${JSON.stringify(await statesOfRequests(t, refs))}`);
    });
    expect(atFlush).toBeLessThan(total);
    expectOnceEach(smsc, lists.flat(), sendAt);
    await expectLedgerWhole(t);
  }, 150_000);
});
