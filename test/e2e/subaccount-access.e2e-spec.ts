import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountsService } from '../../src/modules/accounts/accounts.service.js';
import { ApiKeyCache } from '../../src/modules/api-keys/api-key.cache.js';
import { InboundNumberStore } from '../../src/modules/inbound/inbound-number.store.js';
import { InboundReceiver } from '../../src/modules/inbound/inbound.receiver.js';
import { createSubaccount, createTenant, type Tenant } from '../factories/account.factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const SUBS = '/api/v1/json/subaccounts';
const SMS = '/api/v1/json/bulk/sms';
const MESSAGES = '/api/v1/json/messages';

type Keyed = Pick<Tenant, 'key' | 'username' | 'account'>;

describe('sub-accounts: keys, whose data a key reads, suspension', () => {
  let t: TestApp;
  let parent: Tenant;
  let child: Keyed;
  let sibling: Keyed;
  let stranger: Tenant;
  let strangersChild: Keyed;
  let sent: { parent: string; child: string; sibling: string; childRef: string };

  const get = (key: string, path: string) => t.http().get(path).set('X-API-Key', key);
  const post = (key: string, path: string, body: object) =>
    t.http().post(path).set('X-API-Key', key).send(body);
  const sms = async (who: Keyed, to: string, from = 'ACME') => {
    const res = await post(who.key, SMS, { from, to, message: `from ${who.username}` });
    expect(res.status).toBe(200);
    return res.body as { api_reference: string; data: Array<{ message_id: string }> };
  };

  beforeAll(async () => {
    t = await startTestApp();
    parent = await createTenant(t, { balances: { sms: '100' }, prices: { sms: '1' } });
    child = await createSubaccount(t, parent, { transfers: { sms: '10' } });
    sibling = await createSubaccount(t, parent, { transfers: { sms: '10' } });
    stranger = await createTenant(t);
    strangersChild = await createSubaccount(t, stranger, { transfers: { sms: '10' } });
    const p = await sms(parent, '260971000001');
    const c = await sms(child, '260971000002', '260955000002');
    const s = await sms(sibling, '260971000003');
    sent = {
      parent: p.data[0]!.message_id,
      child: c.data[0]!.message_id,
      sibling: s.data[0]!.message_id,
      childRef: c.api_reference,
    };
  }, 60_000);
  afterAll(async () => t?.close());

  const recipients = (body: { data: Array<{ recipient: string }> }) => body.data.map((m) => m.recipient);

  it("lets the parent read a sub-account's messages, one message and a request summary with subaccount=", async () => {
    const own = await get(parent.key, MESSAGES);
    expect(own.status).toBe(200);
    expect(recipients(own.body)).toEqual(['260971000001']);
    const theirs = await get(parent.key, `${MESSAGES}?subaccount=${child.username}`);
    expect(theirs.status).toBe(200);
    expect(recipients(theirs.body)).toEqual(['260971000002']);
    const one = await get(parent.key, `${MESSAGES}/${sent.child}?subaccount=${child.username}`);
    expect(one.status).toBe(200);
    expect(one.body.recipient ?? one.body.data?.recipient).toBe('260971000002');
    // Without subaccount=, the parent's own data only.
    expect((await get(parent.key, `${MESSAGES}/${sent.child}`)).status).toBe(404);
    const summary = await get(parent.key, `/api/v1/json/bulk/${sent.childRef}?subaccount=${child.username}`);
    expect(summary.status).toBe(200);
    expect(summary.body).toMatchObject({ api_reference: sent.childRef, units: 1, cost: 1 });
    expect((await get(parent.key, `/api/v1/json/bulk/${sent.childRef}`)).status).toBe(404);
  });

  it("exports a sub-account's messages for the parent with subaccount=", async () => {
    const res = await get(parent.key, `${MESSAGES}/export?format=ndjson&subaccount=${child.username}`);
    expect(res.status).toBe(200);
    const rows = res.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((r) => r.recipient)).toEqual(['260971000002']);
  });

  it("lets the parent read a sub-account's inbound messages and suppressions with subaccount=", async () => {
    await t.app.get(InboundNumberStore).add(child.account.id, '260955000002', '');
    await t.app
      .get(InboundReceiver)
      .receive({ from: '260971000002', to: '260955000002', text: 'STOP' }, 'simulate');
    const inbound = await get(parent.key, `/api/v1/json/inbound?subaccount=${child.username}`);
    expect(inbound.status).toBe(200);
    expect(inbound.body.data.map((m: { from?: string; sender?: string }) => m.from ?? m.sender)).toEqual([
      '260971000002',
    ]);
    expect((await get(parent.key, '/api/v1/json/inbound')).body.data).toEqual([]);
    const suppressed = await get(parent.key, `/api/v1/json/suppressions?subaccount=${child.username}`);
    expect(suppressed.status).toBe(200);
    expect(suppressed.body.data.map((s: { recipient: string }) => s.recipient)).toEqual(['260971000002']);
    expect((await get(parent.key, '/api/v1/json/suppressions')).body.data).toEqual([]);
    // The sub-account's own key sees the same.
    expect((await get(child.key, '/api/v1/json/inbound')).body.data).toHaveLength(1);
  });

  it("gives a sub-account's key its own data only: not its parent's nor a sibling's", async () => {
    expect(recipients((await get(child.key, MESSAGES)).body)).toEqual(['260971000002']);
    expect((await get(child.key, `${MESSAGES}/${sent.parent}`)).status).toBe(404);
    expect((await get(child.key, `${MESSAGES}/${sent.sibling}`)).status).toBe(404);
    for (const path of [
      `${MESSAGES}?subaccount=${sibling.username}`,
      `${MESSAGES}?subaccount=${parent.username}`,
      `${MESSAGES}/export?subaccount=${sibling.username}`,
      `/api/v1/json/inbound?subaccount=${sibling.username}`,
      `/api/v1/json/suppressions?subaccount=${parent.username}`,
    ]) {
      const res = await get(child.key, path);
      expect(res.status, path).toBe(404);
      expect(res.body.error.code, path).toBe('NOT_FOUND');
    }
  });

  it("answers 404 to a parent naming another parent's sub-account, on every read route", async () => {
    const routes = (name: string) => [
      `${MESSAGES}?subaccount=${name}`,
      `${MESSAGES}/${sent.child}?subaccount=${name}`,
      `${MESSAGES}/export?subaccount=${name}`,
      `/api/v1/json/bulk/${sent.childRef}?subaccount=${name}`,
      `/api/v1/json/inbound?subaccount=${name}`,
      `/api/v1/json/suppressions?subaccount=${name}`,
    ];
    const refusals: Array<[string, string]> = [
      ...routes(strangersChild.username).map((path): [string, string] => [parent.key, path]),
      ...routes(child.username).map((path): [string, string] => [stranger.key, path]),
    ];
    for (const [key, path] of refusals) {
      const res = await get(key, path);
      expect(res.status, path).toBe(404);
      expect(res.body.error, path).toMatchObject({ code: 'NOT_FOUND', details: [{ field: 'subaccount' }] });
    }
    // The other parent reads its own sub-account's data as usual.
    expect((await get(stranger.key, `${MESSAGES}?subaccount=${strangersChild.username}`)).status).toBe(200);
  });

  it('creates a key for a sub-account, shown once, that works as the sub-account; revoking it stops it', async () => {
    const created = await post(parent.key, `${SUBS}/${child.username}/keys`, {
      name: 'shop',
      daily_limit: '5',
      rate_limit: '50/1',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^\d+$/),
      key: expect.stringMatching(/^bmk_(?!test_)/),
      name: 'shop',
      username: child.username,
      mode: 'live',
      status: 'active',
      daily_limit: 5,
      rate_limit: '50/1',
    });
    const key = created.body.key as string;
    const balance = await get(key, '/api/v1/json/balance');
    expect(balance.status).toBe(200);
    expect(balance.body.client_id).toBe(child.account.clientId);
    expect(recipients((await get(key, MESSAGES)).body)).toEqual(['260971000002']);
    const test = await post(parent.key, `${SUBS}/${child.username}/keys`, { name: 'sandbox', mode: 'test' });
    expect(test.body.key).toMatch(/^bmk_test_/);

    const revoked = await t
      .http()
      .delete(`${SUBS}/${child.username}/keys/${created.body.id}`)
      .set('X-API-Key', parent.key);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: created.body.id, status: 'revoked' });
    expect((await get(key, '/api/v1/json/balance')).status).toBe(401);
  });

  it("refuses key changes on keys that are not the named sub-account's, and from anyone but its parent", async () => {
    const own = await post(parent.key, `${SUBS}/${child.username}/keys`, { name: 'k' });
    const del = (by: string, who: string, id: string) =>
      t.http().delete(`${SUBS}/${who}/keys/${id}`).set('X-API-Key', by);
    // The sibling's path with the child's key id, the parent's own key, a stranger, the child itself.
    expect((await del(parent.key, sibling.username, own.body.id)).status).toBe(404);
    expect((await del(parent.key, child.username, parent.apiKey.id)).status).toBe(404);
    expect((await del(stranger.key, child.username, own.body.id)).status).toBe(404);
    expect((await del(child.key, child.username, own.body.id)).status).toBe(404);
    expect((await post(stranger.key, `${SUBS}/${child.username}/keys`, { name: 'x' })).status).toBe(404);
    expect((await post(child.key, `${SUBS}/${sibling.username}/keys`, { name: 'x' })).status).toBe(404);
    expect((await get(own.body.key, '/api/v1/json/balance')).status).toBe(200);
    const bad = await post(parent.key, `${SUBS}/${child.username}/keys`, {
      name: '',
      mode: 'x',
      rate_limit: '5',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field)).toEqual([
      'name',
      'mode',
      'rate_limit',
    ]);
  });

  it("answers a sub-account's password check with 401 until an operator sets a password", async () => {
    const check = (password: string) =>
      post(child.key, '/api/v1/json/balance', { username: child.username, password });
    expect((await check('anything-at-all-1')).status).toBe(401);
    expect((await check('!')).body.error.code).toBe('INVALID_CREDENTIALS');
    await t.app.get(AccountsService).changePassword(child.username, 'a-fresh-passphrase-9');
    expect((await check('a-fresh-passphrase-9')).status).toBe(200);
  });

  it("suspends a sub-account's keys with its parent (403 ACCOUNT_SUSPENDED) and lets them work again after", async () => {
    const accounts = t.app.get(AccountsService);
    await accounts.setStatus(parent.username, 'suspended');
    t.app.get(ApiKeyCache).clear();
    try {
      for (const key of [parent.key, child.key, sibling.key]) {
        const res = await get(key, '/api/v1/json/balance');
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('ACCOUNT_SUSPENDED');
      }
      // Another parent's sub-account is untouched.
      expect((await get(strangersChild.key, '/api/v1/json/balance')).status).toBe(200);
    } finally {
      await accounts.setStatus(parent.username, 'active');
      t.app.get(ApiKeyCache).clear();
    }
    expect((await get(child.key, '/api/v1/json/balance')).status).toBe(200);
  });
});
