import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { requestsById } from '../support/message-probes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Priority without workers running, so the queue's order can be read: a high-priority send's
 * jobs are the next a worker takes, ahead of every normal one already waiting.
 */

const SMS = '/api/v1/json/bulk/sms';

describe('send priority', () => {
  let t: TestApp;
  let tenant: Tenant;
  let otp: Tenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t, { balances: { sms: '10000' }, prices: { sms: '0.01' } });
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

  /** Job ids in the order workers will take them (Bull takes from the right end of its wait list). */
  async function takeOrder(): Promise<string[]> {
    const q = t.queue('sms');
    const ids = await q.client.lrange(`${t.config.queuePrefix}:sms:wait`, 0, -1);
    return ids.reverse();
  }

  const many = (n: number, base: number) => Array.from({ length: n }, (_, i) => `+2609710${base + i}`);

  it('puts a high-priority send ahead of every queued normal one; a key default applies, and a request can say normal', async () => {
    const normal = await send(tenant.key, many(450, 10000)); // three jobs of at most 200
    const high = await send(tenant.key, ['+260971999999'], { priority: 'high' });
    const byKey = await send(otp.key, ['+260971999998']);
    const overridden = await send(otp.key, ['+260971999997'], { priority: 'normal' });
    for (const r of [normal, high, byKey, overridden]) expect(r.status, JSON.stringify(r.body)).toBe(200);
    const order = await takeOrder();
    const refOf = (id: string) => id.split('-')[0];
    expect(order.slice(0, 2).map(refOf).sort()).toEqual(
      [high.body.api_reference, byKey.body.api_reference].sort(),
    );
    expect(order.slice(2).map(refOf)).toContain(overridden.body.api_reference);
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

  it('refuses a priority other than high or normal with 400 and the field named', async () => {
    const res = await send(tenant.key, ['+260971000001'], { priority: 'urgent' });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([expect.objectContaining({ field: 'priority' })]);
  });
});
