import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyCache } from '../../src/modules/api-keys/api-key.cache.js';
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service.js';
import { AccountsService } from '../../src/modules/accounts/accounts.service.js';
import { SpendLimits } from '../../src/modules/balance/spend-limits.service.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { balanceOf as balanceIn, sendRequestCount } from '../support/probes.js';

const SMS = '/api/v1/json/bulk/sms';
const METRICS_TOKEN = 'metrics-token-spend-limits-0123456789';

describe('daily spend limits', () => {
  let t: TestApp;

  const sms = (key: string, to: string | string[], extra: object = {}) =>
    t
      .http()
      .post(SMS)
      .set('X-API-Key', key)
      .send({ from: 'ACME', to, message: 'x', ...extra });
  const balanceOf = (tenant: Tenant) => balanceIn(t, tenant.account.id);
  const spent = (scope: 'account' | 'key', id: string) => t.app.get(SpendLimits).spentToday(scope, id);
  const requestsOf = (tenant: Tenant) => sendRequestCount(t, tenant.account.id);

  beforeAll(async () => {
    t = await startTestApp({ METRICS_TOKEN });
  }, 60_000);
  afterAll(async () => t?.close());

  it("refuses a send that would cross the key's daily limit with 402 SPEND_LIMIT_EXCEEDED naming what remains, storing and charging nothing", async () => {
    const tenant = await createTenant(t, {
      balances: { sms: '100' },
      prices: { sms: '0.5' },
      key: { dailyLimit: '2.00' },
    });
    expect((await sms(tenant.key, ['260971000001', '260971000002', '260971000003'])).status).toBe(200);
    const before = { balance: await balanceOf(tenant), requests: await requestsOf(tenant) };
    const res = await sms(tenant.key, ['260971000004', '260971000005']);
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({
      success: false,
      error: {
        code: 'SPEND_LIMIT_EXCEEDED',
        details: [{ field: 'daily_limit', message: 'remaining 0.500000 ZMW' }],
      },
    });
    expect(res.body.message).toMatch(/daily spend limit of 2\.000000 ZMW/);
    expect({ balance: await balanceOf(tenant), requests: await requestsOf(tenant) }).toEqual(before);
    // What still fits is accepted: the limit is reached exactly, not refused early.
    expect((await sms(tenant.key, '260971000006')).status).toBe(200);
    expect(await spent('key', tenant.apiKey.id)).toBe('2.000000');
  });

  it("binds all the account's keys together with the account's limit", async () => {
    const tenant = await createTenant(t, { balances: { sms: '100' }, prices: { sms: '1' } });
    const other = await t.app.get(ApiKeysService).create({ username: tenant.username, name: 'second' });
    await t.app.get(AccountsService).setDailyLimit(tenant.username, '2');
    // The key lookup (and the account read with it) is cached for a second in each process.
    t.app.get(ApiKeyCache).clear();
    expect((await sms(tenant.key, '260971000001')).status).toBe(200);
    expect((await sms(other.secret, '260971000002')).status).toBe(200);
    const third = await sms(other.secret, '260971000003');
    expect(third.status).toBe(402);
    expect(third.body.message).toMatch(/the account's daily spend limit of 2\.000000 ZMW/);
    expect(third.body.error.details).toEqual([{ field: 'daily_limit', message: 'remaining 0.000000 ZMW' }]);
    expect(await spent('account', tenant.account.id)).toBe('2.000000');
  });

  // For every channel, in test/integration/channel-money.int-spec.ts: exactly 5 of 20 racing sends
  // through a limit that pays for 5, the room given back by a refund, a test key counting toward
  // no limit, and the key's and account's refusals above without HTTP.

  it('counts refusals in the metrics, by the limit that refused', async () => {
    const res = await t.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
    expect(res.text).toMatch(/bulk_spend_limit_refusals_total\{scope="key"\} [1-9]/);
    expect(res.text).toMatch(/bulk_spend_limit_refusals_total\{scope="account"\} [1-9]/);
  });
});
