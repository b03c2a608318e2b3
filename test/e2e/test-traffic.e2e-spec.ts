import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { statesOfRequests } from '../support/account-messages.js';
import { allCallbackAttempts } from '../support/callback-probes.js';
import { startHttpPeer, type HttpPeer } from '../support/http-peer.js';
import { requestsOf } from '../support/message-probes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

/**
 * Test keys cost nothing, so what they may put on the shared workers, MySQL and callback queue
 * is bounded: recipients per request, messages per account and day, a queue of their own, and
 * callbacks to a failing target.
 */
const SMS = '/api/v1/json/bulk/sms';
const numbers = (n: number, base: number) =>
  Array.from({ length: n }, (_, i) => String(260971200000 + base + i));

describe('test traffic is contained', () => {
  let t: TestApp;
  let dead: HttpPeer;

  const testKeyOf = async (tenant: Tenant) =>
    (await t.app.get(ApiKeysService).create({ username: tenant.username, name: 'sandbox', mode: 'test' }))
      .secret;
  const send = (key: string, body: object) => t.http().post(SMS).set('X-API-Key', key).send(body);

  beforeAll(async () => {
    dead = await startHttpPeer(() => ({ status: 503 }));
    t = await startTestApp({
      RUN_WORKERS: 'true',
      SANDBOX_DELIVERY_DELAY_MS: '50',
      CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
      CALLBACK_BACKOFF_BASE_MS: '50',
      TEST_MAX_RECIPIENTS: '5',
      TEST_DAILY_MESSAGES: '12',
      TEST_CALLBACK_FAILURES: '4/3600',
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await dead?.close();
  });

  it('refuses a test request over TEST_MAX_RECIPIENTS with 400 TOO_MANY_RECIPIENTS, while a live one of that size is accepted', async () => {
    const tenant = await createTenant(t, { balances: { sms: '100' }, prices: { sms: '0.5' } });
    const body = { from: 'ACME', to: numbers(6, 0), message: 'six' };
    const test = await send(await testKeyOf(tenant), body);
    expect([test.status, test.body.error?.code]).toEqual([400, 'TOO_MANY_RECIPIENTS']);
    expect(test.body.message).toMatch(/test key may name at most 5 recipients/);
    expect((await send(tenant.key, body)).status).toBe(200);
    const doc = (await t.http().get('/docs-json')).body;
    expect(doc.info.description).toMatch(/TEST_MAX_RECIPIENTS.*TEST_DAILY_MESSAGES/s);
    expect(Object.keys(doc.paths[SMS].post.responses)).toEqual(expect.arrayContaining(['400', '429']));
  });

  it("answers 429 RATE_LIMITED, with Retry-After until UTC midnight, once an account's test messages of the day would pass TEST_DAILY_MESSAGES; a request refused gives nothing away and live sends go on", async () => {
    const tenant = await createTenant(t, { balances: { sms: '100' }, prices: { sms: '0.5' } });
    const key = await testKeyOf(tenant);
    const other = await testKeyOf(tenant);
    const statusOf = async (k: string, n: number, base: number) =>
      (await send(k, { from: 'ACME', to: numbers(n, base), message: 'quota' })).status;
    expect(await statusOf(key, 5, 100)).toBe(200);
    expect(await statusOf(other, 5, 200)).toBe(200); // the quota is the account's, whatever the key
    const over = await send(key, { from: 'ACME', to: numbers(3, 300), message: 'quota' });
    expect([over.status, over.body.error?.code]).toEqual([429, 'RATE_LIMITED']);
    expect(over.body.error.details).toEqual([{ field: 'test_daily_messages', message: 'remaining 2' }]);
    const now = new Date();
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    const retryAfter = Number(over.headers['retry-after']);
    expect(Math.abs(retryAfter - (midnight - now.getTime()) / 1000)).toBeLessThan(30);
    expect(await statusOf(key, 2, 400)).toBe(200);
    expect(await statusOf(key, 1, 500)).toBe(429);
    // Another account's test keys have their own quota; live sends have none.
    const neighbour = await createTenant(t, { balances: { sms: '100' }, prices: { sms: '0.5' } });
    expect(await statusOf(await testKeyOf(neighbour), 5, 600)).toBe(200);
    expect(await statusOf(tenant.key, 5, 700)).toBe(200);
    const tests = (await requestsOf(t, tenant.account.id, 'test_mode')).filter(
      (r) => Number(r.test_mode) === 1,
    );
    expect(tests).toHaveLength(3);
  });

  it("puts a test key's request on the test queue, never on the channel's queue that live requests wait in", async () => {
    const tenant = await createTenant(t, { balances: { sms: '100' }, prices: { sms: '0.5' } });
    const testQueue = t.queue('test');
    // Paused in this process only: the job stays where it was put, for us to find.
    await testQueue.pause(true);
    try {
      const res = await send(await testKeyOf(tenant), { from: 'ACME', to: numbers(1, 800), message: 'q' });
      expect(res.status).toBe(200);
      const job = await waitFor(
        () => testQueue.getJob(`${res.body.api_reference}-0`),
        5000,
        'the job on the test queue',
      );
      expect(job.data).toMatchObject({ sendRequestId: res.body.api_reference, channel: 'sms' });
      expect(await t.queue('sms').getJob(`${res.body.api_reference}-0`)).toBeNull();
    } finally {
      await testQueue.resume(true);
    }
  });

  it("drops an account's test callbacks to a target once TEST_CALLBACK_FAILURES of them failed, and keeps sending its live ones, whose circuit the test failures did not open", async () => {
    const tenant = await createTenant(t, { balances: { sms: '100' }, prices: { sms: '0.5' } });
    const url = `${dead.url}/hooks`;
    const res = await send(await testKeyOf(tenant), {
      from: 'ACME',
      to: numbers(5, 900),
      message: 'callbacks to a dead target',
      callback_url: url,
    });
    expect(res.status).toBe(200);
    const attempts = async () => (await allCallbackAttempts(t, { accountId: tenant.account.id })).length;
    // Ten events (SENT and DELIVERED of five messages), ten attempts each without the cap.
    await waitFor(
      async () => {
        const counts = await t.queue('callbacks').getJobCounts();
        const n = (await statesOfRequests(t, [res.body.api_reference])).DELIVERED;
        return n === 5 && counts.waiting + counts.active + counts.delayed === 0;
      },
      30_000,
      'every test event done with',
    );
    const capped = await attempts();
    expect(capped).toBeGreaterThanOrEqual(4);
    // The cap, plus at most the events that were in flight when it was reached.
    expect(capped).toBeLessThanOrEqual(4 + t.config.concurrency.callbacks);
    const metrics = await t.http().get('/metrics');
    expect(metrics.text).toMatch(/bulk_callback_attempts_total\{outcome="test_dropped"\} [1-9]/);

    const live = await send(tenant.key, {
      from: 'ACME',
      to: numbers(1, 950),
      message: 'live',
      callback_url: url,
    });
    expect(live.status).toBe(200);
    await waitFor(async () => (await attempts()) > capped, 15_000, 'a live callback attempt');
  }, 60_000);
});
