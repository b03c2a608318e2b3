import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { requestsById } from '../support/message-probes.js';
import { statesOfRequests } from '../support/account-messages.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

/**
 * Priority without workers running, so the queues can be read: a high-priority send's jobs go to
 * the priority queue, which workers take from beside the channels' queues. Then with a worker
 * whose SMS places are all taken: high-priority messages, sent at once or scheduled, still go.
 */

const SMS = '/api/v1/json/bulk/sms';

describe('send priority', () => {
  let t: TestApp;
  let tenant: Tenant;
  let otp: Tenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t, {
      balances: { sms: '10000', email: '100' },
      prices: { sms: '0.01', email: '0.01' },
    });
    otp = await createTenant(t, {
      balances: { sms: '10000' },
      prices: { sms: '0.01' },
      key: { priority: 'high' },
    });
  });
  afterAll(async () => t?.close());

  const send = (key: string, to: string[], extra: Record<string, unknown> = {}) =>
    t
      .http()
      .post(SMS)
      .set('X-API-Key', key)
      .send({ from: 'ACME', to, message: 'code 1234', ...extra });

  /** The requests whose jobs wait on a queue (no worker runs here). */
  async function waitingOn(queue: string): Promise<Array<{ ref: string; channel?: string }>> {
    const jobs = await t.queue(queue).getJobs(['waiting']);
    return jobs.map((j) => ({ ref: String(j.id).split('-')[0], channel: j.data.channel }));
  }

  const many = (n: number, base: number) => Array.from({ length: n }, (_, i) => `+2609710${base + i}`);

  it('puts a high-priority send on the priority queue, not behind the normal ones on the channel queue; a key default applies, and a request can say normal', async () => {
    const normal = await send(tenant.key, many(450, 10000)); // three jobs of at most 200
    const high = await send(tenant.key, ['+260971999999'], { priority: 'high' });
    const byKey = await send(otp.key, ['+260971999998']);
    const overridden = await send(otp.key, ['+260971999997'], { priority: 'normal' });
    const mail = await t.http().post('/api/v1/json/bulk/email').set('X-API-Key', tenant.key).send({
      from: 'codes@acme.example',
      to: 'jane@example.com',
      subject: 'Your code',
      email_body: '<p>1234</p>',
      priority: 'high',
    });
    for (const r of [normal, high, byKey, overridden, mail])
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    const refs = (rs: Array<{ ref: string }>) => rs.map((r) => r.ref).sort();
    const priority = await waitingOn('priority');
    expect(refs(priority)).toEqual(
      [high.body.api_reference, byKey.body.api_reference, mail.body.api_reference].sort(),
    );
    // The priority queue serves every channel: each job says which.
    const channelOf = Object.fromEntries(priority.map((j) => [j.ref, j.channel]));
    expect(channelOf).toEqual({
      [high.body.api_reference]: 'sms',
      [byKey.body.api_reference]: 'sms',
      [mail.body.api_reference]: 'email',
    });
    expect(await t.queue('email').getWaitingCount()).toBe(0);
    const sms = await waitingOn('sms');
    expect(new Set(refs(sms))).toEqual(new Set([normal.body.api_reference, overridden.body.api_reference]));
    expect(sms).toHaveLength(4);
    const stored = await requestsById(
      t,
      [
        high.body.api_reference,
        byKey.body.api_reference,
        overridden.body.api_reference,
        normal.body.api_reference,
      ],
      'id',
      'priority',
    );
    expect(Object.fromEntries(stored.map((r) => [String(r.id), r.priority]))).toEqual({
      [high.body.api_reference]: 'high',
      [byKey.body.api_reference]: 'high',
      [overridden.body.api_reference]: 'normal',
      [normal.body.api_reference]: 'normal',
    });
  });

  it('orders by Bull priority only on the test queue, which holds both: the priority queue keeps arrival order', async () => {
    const high = await send(tenant.key, ['+260971300001'], { priority: 'high' });
    const { secret } = await t.app
      .get(ApiKeysService)
      .create({ username: tenant.username, name: 'sandbox', mode: 'test' });
    const testNormal = await send(secret, ['+260971300002']);
    const testHigh = await send(secret, ['+260971300003'], { priority: 'high' });
    for (const r of [high, testNormal, testHigh]) expect(r.status, JSON.stringify(r.body)).toBe(200);
    const bullPriority = async (queue: string, ref: string) =>
      (await t.queue(queue).getJob(`${ref}-0`))?.opts.priority ?? 'none';
    expect(await bullPriority('priority', high.body.api_reference)).toBe('none');
    expect(await bullPriority('test', testNormal.body.api_reference)).toBe('none');
    expect(await bullPriority('test', testHigh.body.api_reference)).toBe(1);
    // Taken first from the test queue, although it came last.
    const [next] = await t.queue('test').getWaiting(0, 0);
    expect(String(next?.id)).toBe(`${testHigh.body.api_reference}-0`);
  });

  it('refuses a priority other than high or normal with 400 and the field named', async () => {
    const res = await send(tenant.key, ['+260971000001'], { priority: 'urgent' });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([expect.objectContaining({ field: 'priority' })]);
  });
});

describe('send priority with a worker whose every SMS place is taken', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestApp({ RUN_WORKERS: 'true', SCHEDULE_POLL_MS: '200' });
    tenant = await createTenant(t, { balances: { sms: '10000' }, prices: { sms: '0.01' } });
  });
  afterAll(async () => t?.close());

  const send = (body: Record<string, unknown>) =>
    t
      .http()
      .post(SMS)
      .set('X-API-Key', tenant.key)
      .send({ from: 'ACME', message: 'code 1234', ...body });

  it('hands over high-priority messages, sent at once or scheduled, while normal ones wait for a place', async () => {
    const sms = t.queue('sms');
    // Paused in this process only: as if every place on the SMS queue held a long job.
    await sms.pause(true);
    try {
      const normal = await send({ to: ['+260971200001'] });
      const high = await send({ to: ['+260971200002'], priority: 'high' });
      const scheduled = await send({
        to: ['+260971200003'],
        priority: 'high',
        send_at: new Date(Date.now() + 6000).toISOString(), // under 5 s ahead would be sent at once
      });
      for (const r of [normal, high, scheduled]) expect(r.status, JSON.stringify(r.body)).toBe(200);
      const refs = [high.body.api_reference, scheduled.body.api_reference];
      await waitFor(
        async () => (await statesOfRequests(t, refs)).DELIVERED === 2,
        20_000,
        'both high-priority messages delivered',
      );
      expect(await statesOfRequests(t, [normal.body.api_reference])).toEqual({ ACKNOWLEDGED: 1 });
    } finally {
      await sms.resume(true);
    }
  });
});
