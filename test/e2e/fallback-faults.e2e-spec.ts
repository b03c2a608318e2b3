import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { RedisInstance } from '../support/redis-instance.js';
import { startSmppPeer, type SmppPeer } from '../support/smpp-peer.js';
import { statesOfRequests } from '../support/account-messages.js';
import { fallbacksOf, fallbacksWaiting, requestMessages } from '../support/message-probes.js';
import { storeProblems } from '../support/store-invariants.js';
import { startTestApp, uniqueName, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { startWorkerProcess } from '../support/worker-process.js';

/**
 * Fallbacks are held in MySQL: every process restarted and Redis coming back empty while the
 * fallbacks fall due delays them; none is lost, and with two workers racing for them after the
 * restart none is made or sent twice. The suite has a Redis of its own.
 */

const CHAT = '/api/v1/json/bulk/chat';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const numbers = (n: number) => Array.from({ length: n }, (_, i) => `26095${String(i).padStart(7, '0')}`);

describe('every process restarted and Redis emptied while chat-to-SMS fallbacks fall due', () => {
  const name = uniqueName();
  let redis: RedisInstance;
  let smsc: SmppPeer;
  let t: TestApp | undefined;
  let tenant: Tenant;
  const workers: ChildProcess[] = [];
  const env = () => ({
    REDIS_URL: redis.url,
    FALLBACK_POLL_MS: '100',
    // Chat messages get no receipt: each falls back when after_seconds is up.
    SANDBOX_DELIVERY_DELAY_MS: '600000',
  });
  const startWorker = () => {
    const w = startWorkerProcess(name, { ...env(), SMS_TRANSPORT: 'smpp', SMPP_URL: smsc.url });
    workers.push(w);
    return w;
  };
  const fallbacks = (chatIds: string[]) => fallbacksOf(t!, chatIds);

  beforeAll(async () => {
    redis = await RedisInstance.start();
    smsc = await startSmppPeer({ autoReceipt: false });
    t = await startTestApp({ ...env(), RUN_WORKERS: 'false' }, name);
    tenant = await createTenant(t, {
      balances: { sms: '1000', chat: '1000' },
      prices: { sms: '0.1', chat: '0.2' },
    });
  });
  afterAll(async () => {
    for (const w of workers) w.kill('SIGKILL');
    await t?.close();
    await redis?.stop();
    await smsc?.close();
  });

  it('makes each fallback SMS once after the restart, and hands each over once', async () => {
    const to = numbers(60);
    const first = startWorker();
    const res = await t!
      .http()
      .post(CHAT)
      .set('X-API-Key', tenant.key)
      .send({
        username: tenant.username,
        password: tenant.password,
        senderid: '260950000000',
        message: 'Your code is 4711',
        recipient: to,
        fallback: { channel: 'sms', after_seconds: 10, from: 'ACME' },
      });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const chats = await requestMessages(t!, res.body.reference, 'id', 'fallback_due_at');
    const ids = chats.map((c) => String(c.id));
    const due = Math.max(...chats.map((c) => new Date(c.fallback_due_at).getTime()));
    await waitFor(
      async () => {
        return (await statesOfRequests(t!, [res.body.reference])).SENT === to.length;
      },
      30_000,
      'the chat messages sent',
    );

    // Everything goes down before the fallbacks fall due, and stays down past it.
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    await t!.app.close();
    t = undefined;
    await redis.stop();
    await sleep(Math.max(0, due - Date.now()) + 1000);
    expect(smsc.received.length).toBe(0);

    await redis.start(); // empty
    t = await startTestApp({ ...env(), RUN_WORKERS: 'false' }, name);
    expect(await fallbacks(ids)).toEqual([]);
    // Two workers race for the due fallbacks.
    startWorker();
    startWorker();
    await waitFor(async () => (await fallbacks(ids)).length === to.length, 60_000, 'every fallback made');
    await waitFor(
      async () => to.every((n) => smsc.countByDestination(n) >= 1),
      60_000,
      'every SMS handed over',
    );
    await sleep(1000);
    expect(
      to.filter((n) => smsc.countByDestination(n) !== 1),
      'handed over other than once',
    ).toEqual([]);
    const made = await fallbacks(ids);
    expect(new Set(made.map((m) => String(m.fallback_of))).size).toBe(to.length);
    expect(await fallbacksWaiting(t)).toBe(0);
    expect(await storeProblems(t!)).toEqual([]);
  }, 180_000);
});
