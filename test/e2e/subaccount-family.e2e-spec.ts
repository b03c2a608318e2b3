import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyCache } from '../../src/modules/api-keys/api-key.cache.js';
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service.js';
import { ExportLeases } from '../../src/modules/messages/search/export-leases.service.js';
import { createSubaccount, createTenant, type Tenant } from '../factories/account.factory.js';
import { setKeyRateLimitDirectly } from '../support/direct-writes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const SUBS = '/api/v1/json/subaccounts';
const SMS = '/api/v1/json/bulk/sms';
const EXPORT = '/api/v1/json/messages/export';
const TEMPLATES = '/api/v1/json/templates';
const BALANCE = '/api/v1/json/balance';
const SEARCH = '/api/v1/json/messages?limit=1';

/**
 * A parent and its sub-accounts are one tenant for what tenants share: a sub-account's key gets
 * no more rate than its parent's keys, and the family shares one set of export slots, one test
 * quota, one template quota and one wrong-password budget.
 */
describe('sub-accounts count as their parent for what tenants share', () => {
  let t: TestApp;
  let next = 500_000;
  const numbers = (n: number) => Array.from({ length: n }, () => `260971${next++}`);

  beforeAll(async () => {
    t = await startTestApp({
      RATE_LIMIT_DEFAULT: '100/1',
      EXPORTS_PER_ACCOUNT: '1',
      TEST_DAILY_MESSAGES: '4',
      TEMPLATES_PER_ACCOUNT: '2',
      AUTH_PASSWORD_FAILURES_PER_KEY: '3/60',
      AUTH_PASSWORD_FAILURES_PER_ACCOUNT: '4/60',
    });
  }, 60_000);
  afterAll(async () => t?.close());

  const http = (key: string) => ({
    post: (path: string, body: object) => t.http().post(path).set('X-API-Key', key).send(body),
    get: (path: string) => t.http().get(path).set('X-API-Key', key),
  });
  const keyOf = async (username: string, over: Record<string, unknown> = {}) =>
    (await t.app.get(ApiKeysService).create({ username, name: 'extra', ...over })).secret;

  describe('rate limits', () => {
    it("refuses a sub-account key's rate_limit above its parent's most generous key with 400 naming rate_limit", async () => {
      const parent = await createTenant(t);
      const child = await createSubaccount(t, parent);
      const keys = `${SUBS}/${child.username}/keys`;
      for (const rate_limit of ['999999999/1', '101/1', '200/2']) {
        const res = await http(parent.key).post(keys, { name: 'fast', rate_limit });
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({
          code: 'VALIDATION_ERROR',
          details: [{ field: 'rate_limit' }],
        });
      }
      // As much as the parent's own key (the default 100/1), or a slower one, is fine.
      expect((await http(parent.key).post(keys, { name: 'same', rate_limit: '100/1' })).status).toBe(201);
      expect((await http(parent.key).post(keys, { name: 'slow', rate_limit: '50/10' })).status).toBe(201);
    });

    it("caps a sub-account key set above its parent's keys before the rule, or left at a default above them, when the key is read", async () => {
      const parent = await createTenant(t, { key: { rateLimit: { limit: 10, windowSeconds: 1 } } });
      const child = await createSubaccount(t, parent);
      // The sub-account's key has no limit of its own: the default 100/1 is above the parent's 10/1.
      const byDefault = await http(child.key).get(SEARCH);
      expect(byDefault.status).toBe(200);
      expect(byDefault.headers['ratelimit-limit']).toBe('10');
      await setKeyRateLimitDirectly(t, child.apiKey.id, { limit: 999_999_999, windowSeconds: 1 });
      t.app.get(ApiKeyCache).clear();
      const capped = await http(child.key).get(SEARCH);
      expect(capped.headers['ratelimit-limit']).toBe('10');
    });
  });

  it("shares the parent's export slots with its sub-accounts, and no one else's", async () => {
    const parent = await createTenant(t);
    const child = await createSubaccount(t, parent);
    const stranger = await createTenant(t);
    // The family's one slot held, as by a slow export of the parent's.
    const lease = await t.app.get(ExportLeases).acquire(parent.account.id);
    try {
      const byChild = await http(child.key).get(EXPORT);
      expect(byChild.status).toBe(429);
      expect(byChild.body.error.code).toBe('RATE_LIMITED');
      expect((await http(parent.key).get(`${EXPORT}?subaccount=${child.username}`)).status).toBe(429);
      expect((await http(stranger.key).get(EXPORT)).status).toBe(200);
    } finally {
      await lease.release();
    }
    expect((await http(child.key).get(EXPORT)).status).toBe(200);
  });

  it("counts a sub-account's test messages toward its parent's daily test quota", async () => {
    const parent = await createTenant(t);
    const child = await createSubaccount(t, parent);
    const parentTest = await keyOf(parent.username, { mode: 'test' });
    const childTest = await keyOf(child.username, { mode: 'test' });
    const send = (key: string, n: number) =>
      http(key).post(SMS, { from: 'ACME', to: numbers(n), message: 'q' });
    expect((await send(parentTest, 3)).status).toBe(200);
    const over = await send(childTest, 2);
    expect(over.status).toBe(429);
    expect(over.body.error.details).toEqual([{ field: 'test_daily_messages', message: 'remaining 1' }]);
    expect((await send(childTest, 1)).status).toBe(200);
    // Another tenant's quota is its own.
    const stranger = await createTenant(t);
    expect((await send(await keyOf(stranger.username, { mode: 'test' }), 4)).status).toBe(200);
  });

  it("counts a sub-account's templates toward its parent's template quota", async () => {
    const parent = await createTenant(t);
    const child = await createSubaccount(t, parent);
    const template = (name: string) => ({ name, channel: 'sms', body: 'Hi {{name}}' });
    expect((await http(parent.key).post(TEMPLATES, template('one'))).status).toBe(201);
    expect((await http(child.key).post(TEMPLATES, template('two'))).status).toBe(201);
    const over = await http(child.key).post(TEMPLATES, template('three'));
    expect(over.status).toBe(403);
    expect(over.body.message).toMatch(/TEMPLATES_PER_ACCOUNT/);
    expect((await http(parent.key).post(TEMPLATES, template('three'))).status).toBe(403);
  });

  it("counts wrong passwords sent with sub-accounts' keys toward the parent's account budget", async () => {
    const parent = await createTenant(t);
    const child = await createSubaccount(t, parent);
    const secondChildKey = await keyOf(child.username);
    const balance = (key: string, username: string, password: string) =>
      http(key).post(BALANCE, { username, password });
    // Three wrong ones on one key (its own budget), one on another: four for the family.
    for (let i = 0; i < 3; i++)
      expect((await balance(child.key, child.username, `wrong-${i}`)).status).toBe(401);
    expect((await balance(secondChildKey, child.username, 'wrong-3')).status).toBe(401);
    const res = await balance(parent.key, parent.username, parent.password);
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('RATE_LIMITED');
  });

  it('answers a taken username alike whoever holds it: its own sub-account or another tenant', async () => {
    const parent: Tenant = await createTenant(t);
    const own = await createSubaccount(t, parent);
    const stranger = await createTenant(t);
    const mine = await http(parent.key).post(SUBS, { username: own.username });
    const theirs = await http(parent.key).post(SUBS, { username: stranger.username });
    expect([mine.status, theirs.status]).toEqual([409, 409]);
    // The whole envelope but the request id, with the name asked for in place of either name.
    const shape = (body: Record<string, unknown>, name: string) =>
      JSON.stringify({ ...body, request_id: null }).replaceAll(name, 'NAME');
    expect(shape(mine.body, own.username)).toBe(shape(theirs.body, stranger.username));
    expect(theirs.body.error).toMatchObject({
      code: 'DUPLICATE_USERNAME',
      details: [{ field: 'username', message: 'not available' }],
    });
  });
});
