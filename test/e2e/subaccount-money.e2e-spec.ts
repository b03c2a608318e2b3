import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountsService } from '../../src/modules/accounts/accounts.service.js';
import { ApiKeyCache } from '../../src/modules/api-keys/api-key.cache.js';
import { BalanceService } from '../../src/modules/balance/balance.service.js';
import { SpendLimits } from '../../src/modules/balance/spend-limits.service.js';
import { DestinationPriceStore } from '../../src/modules/balance/pricing/destination-price.store.js';
import { createSubaccount, createTenant } from '../factories/account.factory.js';
import { runCli } from '../support/cli-in-process.js';
import { startTestApp, testEnv, type TestApp } from '../support/test-app.js';

const SMS = '/api/v1/json/bulk/sms';
/** Price and routing tables are remembered for a second per process. */
const PRICE_TTL_MS = 1100;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("sub-accounts: the parent's prices with the sub-account's own overrides, and spend limits per sub-account and family", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  }, 60_000);
  afterAll(async () => t?.close());

  const get = (key: string, path: string) => t.http().get(path).set('X-API-Key', key);
  const post = (key: string, path: string, body: object) =>
    t.http().post(path).set('X-API-Key', key).send(body);
  const preview = async (key: string, to: string[]) => {
    const res = await post(key, `${SMS}/preview`, { from: 'ACME', to, message: 'hello' });
    expect(res.status).toBe(200);
    return (res.body.recipients as Array<{ recipient: string; cost: number }>).map((r) => [
      r.recipient,
      r.cost,
    ]);
  };
  const spent = (scope: 'account' | 'key', id: string) => t.app.get(SpendLimits).spentToday(scope, id);

  it("pays the parent's channel price, following its changes, until the sub-account has its own (shown in /balance)", async () => {
    const parent = await createTenant(t, { balances: { sms: '100' }, prices: { sms: '0.3' } });
    const child = await createSubaccount(t, parent, { transfers: { sms: '10' } });
    const priceOf = async (key: string) => (await get(key, '/api/v1/json/balance')).body.balances.sms;
    expect(await priceOf(child.key)).toEqual({ balance_value: 10, cost_per_unit: 0.3, credits: 33 });
    await t.app.get(BalanceService).setPrice(parent.account.id, 'sms', '0.5');
    expect((await priceOf(child.key)).cost_per_unit).toBe(0.5);
    await sleep(PRICE_TTL_MS);
    expect(await preview(child.key, ['260971000001'])).toEqual([['260971000001', 0.5]]);
    // The reseller's markup: the sub-account's own price, whatever the parent's becomes.
    await t.app.get(BalanceService).setPrice(child.account.id, 'sms', '0.8');
    await t.app.get(BalanceService).setPrice(parent.account.id, 'sms', '0.2');
    expect(await priceOf(child.key)).toEqual({ balance_value: 10, cost_per_unit: 0.8, credits: 12 });
    expect((await priceOf(parent.key)).cost_per_unit).toBe(0.2);
    await sleep(PRICE_TTL_MS);
    expect(await preview(child.key, ['260971000001'])).toEqual([['260971000001', 0.8]]);
    const sent = await post(child.key, SMS, { from: 'ACME', to: '260971000001', message: 'hello' });
    expect(sent.status).toBe(200);
    expect((await priceOf(child.key)).balance_value).toBe(9.2);
    // Other channels still follow the parent.
    expect((await get(child.key, '/api/v1/json/balance')).body.balances.email.cost_per_unit).toBe(
      (await get(parent.key, '/api/v1/json/balance')).body.balances.email.cost_per_unit,
    );
  });

  it("pays the parent's destination prices on prefixes it has not priced itself, its own on those it has", async () => {
    const parent = await createTenant(t, { balances: { sms: '100' }, prices: { sms: '0.25' } });
    const child = await createSubaccount(t, parent, { transfers: { sms: '10' } });
    const prices = t.app.get(DestinationPriceStore);
    await prices.setPrice(parent.account.id, 'sms', '26097', '0.4');
    await prices.setPrice(parent.account.id, 'sms', '26096', '0.35');
    await prices.setPrice(child.account.id, 'sms', '26096', '0.6');
    const to = ['260971000001', '260961000001', '260951000001'];
    expect(await preview(child.key, to)).toEqual([
      ['260971000001', 0.4],
      ['260961000001', 0.6],
      ['260951000001', 0.25],
    ]);
    expect(await preview(parent.key, to)).toEqual([
      ['260971000001', 0.4],
      ['260961000001', 0.35],
      ['260951000001', 0.25],
    ]);
    const sent = await post(child.key, SMS, { from: 'ACME', to, message: 'hello' });
    expect(sent.status).toBe(200);
    expect((await get(child.key, '/api/v1/json/balance')).body.balances.sms.balance_value).toBe(8.75);
  });

  it("applies a sub-account's own daily limit and its parent's, which covers the family, over HTTP and in accounts limit", async () => {
    const parent = await createTenant(t, { balances: { sms: '100' }, prices: { sms: '1' } });
    const child = await createSubaccount(t, parent, { transfers: { sms: '10' } });
    const accounts = t.app.get(AccountsService);
    await accounts.setDailyLimit(parent.username, '4');
    await accounts.setDailyLimit(child.username, '3');
    t.app.get(ApiKeyCache).clear();
    const send = (key: string, to: string[]) => post(key, SMS, { from: 'ACME', to, message: 'x' });
    expect((await send(child.key, ['260971000001', '260971000002'])).status).toBe(200);
    // The sub-account's own limit is the tighter: 1 left of its 3, 2 of the family's 4.
    const over = await send(child.key, ['260971000003', '260971000004']);
    expect(over.status).toBe(402);
    expect(over.body.error).toMatchObject({
      code: 'SPEND_LIMIT_EXCEEDED',
      details: [{ field: 'daily_limit', message: 'remaining 1.000000 ZMW' }],
    });
    expect((await send(child.key, ['260971000005'])).status).toBe(200);
    expect(await spent('account', child.account.id)).toBe('3.000000');
    // The parent's row is the family's: its sub-account's 3.00 counts against the parent's 4.00.
    expect(await spent('account', parent.account.id)).toBe('3.000000');
    expect((await send(parent.key, ['260971000006'])).status).toBe(200);
    expect((await send(parent.key, ['260971000007'])).status).toBe(402);
    // Without a limit of its own, the sub-account is still held by its parent's.
    await accounts.setDailyLimit(child.username, null);
    t.app.get(ApiKeyCache).clear();
    const byParent = await send(child.key, ['260971000008']);
    expect(byParent.status).toBe(402);
    expect(byParent.body.message).toContain(
      "the parent account's (covering its sub-accounts) daily spend limit",
    );
    // Transfers are not spending: they count toward no limit.
    expect(
      (
        await post(parent.key, `/api/v1/json/subaccounts/${child.username}/transfers`, {
          channel: 'sms',
          amount: 5,
        })
      ).status,
    ).toBe(200);
    expect(await spent('account', parent.account.id)).toBe('4.000000');
    const shown = await runCli(testEnv(t.name), [
      'accounts',
      'limit',
      '--username',
      parent.username,
      '--json',
    ]);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      daily_limit: 4,
      spent_today: 4,
      remaining_today: 0,
      subaccounts: 1,
      subaccounts_spent_today: 3,
    });
    const ofChild = await runCli(testEnv(t.name), [
      'accounts',
      'limit',
      '--username',
      child.username,
      '--json',
    ]);
    expect(JSON.parse(ofChild.stdout)).toMatchObject({ spent_today: 3, parent: parent.username });
  });
});
