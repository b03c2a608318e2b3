import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant } from '../factories/account.factory.js';
import { ledgerEntries } from '../support/account-probes.js';
import { balanceOf, ledgerSum, messageCount, sendRequestCount } from '../support/probes.js';
import { queuedMessageIds, startTestApp, type TestApp } from '../support/test-app.js';

const SMS = '/api/v1/json/bulk/sms';
const BALANCE = '/api/v1/json/balance';

describe('accounts, prices and balances', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  describe('POST /api/v1/json/balance', () => {
    it('answers the documented shape with credits = floor(balance / price) and total_value the exact sum', async () => {
      const tenant = await createTenant(t, {
        balances: { sms: '19687.5', email: '10.10', chat: '0.2' },
        prices: { sms: '1.25', email: '0.03', chat: '0.07' },
        currency: 'ZMW',
      });
      const res = await t
        .http()
        .post(BALANCE)
        .set('X-API-Key', tenant.key)
        .send({ username: tenant.username, password: tenant.password });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        status: 'success',
        account_status: 'active',
        client_id: tenant.account.clientId,
        currency: 'ZMW',
        last_updated: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        total_value: 19697.8,
        balances: {
          email: { balance_value: 10.1, cost_per_unit: 0.03, credits: 336 },
          sms: { balance_value: 19687.5, cost_per_unit: 1.25, credits: 15750 },
          chat: { balance_value: 0.2, cost_per_unit: 0.07, credits: 2 },
        },
      });
    });

    it('answers GET with the key alone, the same balance as the POST form; no key is 401', async () => {
      const tenant = await createTenant(t, { balances: { sms: '10', email: '2.5' }, prices: { sms: '0.5' } });
      const got = await t.http().get(BALANCE).set('Authorization', `Bearer ${tenant.key}`);
      expect(got.status).toBe(200);
      const posted = await t
        .http()
        .post(BALANCE)
        .set('X-API-Key', tenant.key)
        .send({ username: tenant.username, password: tenant.password });
      expect({ ...got.body, last_updated: null }).toEqual({ ...posted.body, last_updated: null });
      expect(got.body).toMatchObject({
        total_value: 12.5,
        balances: { sms: { balance_value: 10, credits: 20 } },
      });
      const none = await t.http().get(BALANCE);
      expect(none.status).toBe(401);
      expect(none.body.error.code).toBe('MISSING_API_KEY');
    });

    it('refuses a wrong password with 401 INVALID_CREDENTIALS', async () => {
      const tenant = await createTenant(t);
      const res = await t
        .http()
        .post(BALANCE)
        .set('X-API-Key', tenant.key)
        .send({ username: tenant.username, password: 'wrong-password' });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('INVALID_CREDENTIALS');
    });

    it("refuses another account's valid credentials with the same 401 INVALID_CREDENTIALS", async () => {
      const a = await createTenant(t);
      const b = await createTenant(t);
      const res = await t
        .http()
        .post(BALANCE)
        .set('X-API-Key', a.key)
        .send({ username: b.username, password: b.password });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('INVALID_CREDENTIALS');
    });

    it('refuses missing credentials with 400 VALIDATION_ERROR', async () => {
      const a = await createTenant(t);
      const res = await t.http().post(BALANCE).set('X-API-Key', a.key).send({});
      expect(res.status).toBe(400);
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(['username', 'password']);
    });
  });

  describe('charging', () => {
    it('lowers the balance by exactly segments × recipients × price, with one ledger row', async () => {
      const tenant = await createTenant(t, { balances: { sms: '10' }, prices: { sms: '0.333333' } });
      // 161 GSM characters = 2 segments; 3 valid recipients, 1 invalid (not charged).
      const res = await t
        .http()
        .post(SMS)
        .set('X-API-Key', tenant.key)
        .send({
          from: 'ACME',
          to: ['260971234567', '260971234568', '260971234569', 'bad'],
          message: 'a'.repeat(161),
        });
      expect(res.status).toBe(200);
      expect(await balanceOf(t, tenant.account.id)).toBe('8.000002'); // 10 - 6 × 0.333333
      const charges = await ledgerEntries(t, { accountId: tenant.account.id }, 'charge');
      expect(charges.map((c) => c.amount)).toEqual(['-1.999998']);
      expect(await ledgerSum(t, tenant.account.id)).toBe(await balanceOf(t, tenant.account.id));
    });

    it('refuses a send the balance cannot pay with 402 INSUFFICIENT_BALANCE, storing and queuing nothing', async () => {
      const tenant = await createTenant(t, { balances: { sms: '0.5' }, prices: { sms: '0.25' } });
      const queuedBefore = (await queuedMessageIds(t.queue('sms'))).length;
      const res = await t
        .http()
        .post(SMS)
        .set('X-API-Key', tenant.key)
        .send({ from: 'ACME', to: ['260971234567', '260971234568', '260971234569'], message: 'x' });
      expect(res.status).toBe(402);
      expect(res.body.error.code).toBe('INSUFFICIENT_BALANCE');
      expect(res.body.message).toMatch(/0\.75.*0\.5/);
      const n = await messageCount(t, tenant.account.id);
      const r = await sendRequestCount(t, tenant.account.id);
      expect([Number(n), Number(r)]).toEqual([0, 0]);
      expect((await queuedMessageIds(t.queue('sms'))).length).toBe(queuedBefore);
      expect(await balanceOf(t, tenant.account.id)).toBe('0.500000');
    });

    // The same rule under races (exactly 50 of 200 concurrent sends, several accounts at once, one
    // running dry) is proven for every channel in test/integration/channel-money.int-spec.ts.
  });

  describe('idempotency (user_reference_id)', () => {
    const body = {
      from: 'ACME',
      to: ['260971234567', '260971234568'],
      message: 'once',
      user_reference_id: 'order-42',
    };

    it('replays the first answer for the same body and charges nothing more', async () => {
      const tenant = await createTenant(t, { balances: { sms: '10' }, prices: { sms: '1' } });
      const first = await t.http().post(SMS).set('X-API-Key', tenant.key).send(body);
      const second = await t.http().post(SMS).set('X-API-Key', tenant.key).send(body);
      expect(first.status).toBe(200);
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
      expect(await balanceOf(t, tenant.account.id)).toBe('8.000000');
      const r = await sendRequestCount(t, tenant.account.id);
      expect(Number(r)).toBe(1);
    });

    it('refuses the same reference with a different body with 409 DUPLICATE_REFERENCE', async () => {
      const tenant = await createTenant(t);
      await t.http().post(SMS).set('X-API-Key', tenant.key).send(body);
      const res = await t
        .http()
        .post(SMS)
        .set('X-API-Key', tenant.key)
        .send({ ...body, message: 'different' });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('DUPLICATE_REFERENCE');
    });

    // Racing repeats and the references of different accounts kept apart, for every channel:
    // test/integration/channel-requests.int-spec.ts.
  });
});
