import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubaccount, createTenant } from '../factories/account.factory.js';
import type { Channel } from '../../src/modules/messages/channel.js';
import {
  accountFields,
  ledgerEntries,
  ledgerMismatches as mismatchesIn,
  ledgerTotals,
} from '../support/account-probes.js';
import { balanceOf as balanceIn } from '../support/probes.js';
import { storeProblems } from '../support/store-invariants.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const SUBS = '/api/v1/json/subaccounts';
const SMS = '/api/v1/json/bulk/sms';
const METRICS_TOKEN = 'metrics-token-subaccounts-0123456789';

describe('sub-accounts: creation, overview and transfers', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ METRICS_TOKEN });
  }, 60_000);
  afterAll(async () => t?.close());

  const http = (key: string) => ({
    post: (path: string, body: object) => t.http().post(path).set('X-API-Key', key).send(body),
    get: (path: string) => t.http().get(path).set('X-API-Key', key),
  });
  const balanceOf = (accountId: string, channel: Channel = 'sms') => balanceIn(t, accountId, channel);
  const ledgerMismatches = (ids: string[]) => mismatchesIn(t, ids);
  const newName = () => `acme_${Math.random().toString(36).slice(2, 10)}`;

  it('creates a sub-account with the parent key: 201 with username, parent, name, status and created_at', async () => {
    const parent = await createTenant(t, { currency: 'USD' });
    const username = newName();
    const res = await http(parent.key).post(SUBS, { username, name: 'ACME Retail' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      username,
      parent: parent.username,
      name: 'ACME Retail',
      status: 'active',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const row = await accountFields(t, { username }, 'parent_id', 'currency');
    expect(String(row.parent_id)).toBe(String(parent.account.id));
    // The parent's currency, whatever the default.
    expect(row.currency).toBe('USD');
  });

  it('refuses a taken username with 409 DUPLICATE_USERNAME, whoever holds it', async () => {
    const parent = await createTenant(t);
    const other = await createTenant(t);
    const username = newName();
    expect((await http(parent.key).post(SUBS, { username })).status).toBe(201);
    const again = await http(parent.key).post(SUBS, { username });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('DUPLICATE_USERNAME');
    const taken = await http(parent.key).post(SUBS, { username: other.username });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatchObject({ code: 'DUPLICATE_USERNAME', details: [{ field: 'username' }] });
  });

  it('refuses a bad username or name with 400 VALIDATION_ERROR naming the fields', async () => {
    const parent = await createTenant(t);
    const res = await http(parent.key).post(SUBS, { username: 'a b', name: '' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'name',
      'username',
    ]);
    const unknown = await http(parent.key).post(SUBS, { username: newName(), currency: 'EUR' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details).toEqual([{ field: 'currency', message: 'unknown field' }]);
  });

  it('keeps to one level: a sub-account key cannot create sub-accounts (403), and a test key cannot either', async () => {
    const parent = await createTenant(t);
    const child = await createSubaccount(t, parent);
    const res = await http(child.key).post(SUBS, { username: newName() });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    const testKey = await createTenant(t, { key: { mode: 'test' } });
    expect((await http(testKey.key).post(SUBS, { username: newName() })).status).toBe(403);
  });

  it('lists the sub-accounts with cursor paging, oldest first, with balances and status', async () => {
    const parent = await createTenant(t, { balances: { sms: '100' }, prices: { sms: '0.5' } });
    const names: string[] = [];
    for (let i = 0; i < 5; i++) {
      const n = newName();
      names.push(n);
      expect((await http(parent.key).post(SUBS, { username: n })).status).toBe(201);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await http(parent.key).get(`${SUBS}?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.subaccounts.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.subaccounts.map((s: { username: string }) => s.username));
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(names);
    expect(pages).toBe(3);
    const all = await http(parent.key).get(SUBS);
    expect(all.body.next_cursor).toBeNull();
    expect(all.body.subaccounts[0]).toMatchObject({
      username: names[0],
      parent: parent.username,
      status: 'active',
      balances: { sms: { balance_value: 0, cost_per_unit: 0.5, credits: 0 } },
      usage: {
        month: new Date().toISOString().slice(0, 7),
        sms: { units: 0, cost: 0 },
        email: { units: 0, cost: 0 },
        chat: { units: 0, cost: 0 },
      },
    });
    for (const bad of ['limit=0', 'limit=1001', 'cursor=%%%'])
      expect((await http(parent.key).get(`${SUBS}?${bad}`)).status).toBe(400);
  });

  it("shows one sub-account with its balances and this month's units and cost per channel", async () => {
    const parent = await createTenant(t, { balances: { sms: '100' }, prices: { sms: '0.5' } });
    const child = await createSubaccount(t, parent, { transfers: { sms: '10' } });
    const sent = await http(child.key).post(SMS, {
      from: 'ACME',
      to: ['260971000001', '260971000002'],
      message: 'hi',
    });
    expect(sent.status).toBe(200);
    const res = await http(parent.key).get(`${SUBS}/${child.username}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      username: child.username,
      parent: parent.username,
      status: 'active',
      currency: 'ZMW',
      balances: { sms: { balance_value: 9, cost_per_unit: 0.5, credits: 18 } },
      usage: { sms: { units: 2, cost: 1 }, email: { units: 0, cost: 0 } },
    });
  });

  it("sums a sub-account's month once a minute, not on every read of the overview", async () => {
    const parent = await createTenant(t, { balances: { sms: '100' }, prices: { sms: '0.5' } });
    const child = await createSubaccount(t, parent, { transfers: { sms: '10' } });
    const send = () => http(child.key).post(SMS, { from: 'ACME', to: ['260971000003'], message: 'hi' });
    const usage = async () => {
      const one = await http(parent.key).get(`${SUBS}/${child.username}`);
      const all = await http(parent.key).get(SUBS);
      expect([one.status, all.status]).toEqual([200, 200]);
      const listed = all.body.subaccounts.find((s: { username: string }) => s.username === child.username);
      return [one.body.usage.sms, listed.usage.sms];
    };
    expect((await send()).status).toBe(200);
    expect(await usage()).toEqual([
      { units: 1, cost: 0.5 },
      { units: 1, cost: 0.5 },
    ]);
    // A second send within the minute: the overview answers from the month it summed.
    expect((await send()).status).toBe(200);
    expect(await usage()).toEqual([
      { units: 1, cost: 0.5 },
      { units: 1, cost: 0.5 },
    ]);
  });

  it("answers 404 for another account's sub-account and for a name that is not a sub-account", async () => {
    const parent = await createTenant(t);
    const stranger = await createTenant(t);
    const child = await createSubaccount(t, parent);
    for (const path of [`${SUBS}/${child.username}`, `${SUBS}/${parent.username}`, `${SUBS}/nobody_here`]) {
      const res = await http(stranger.key).get(path);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    const move = await http(stranger.key).post(`${SUBS}/${child.username}/transfers`, {
      channel: 'sms',
      amount: 1,
    });
    expect(move.status).toBe(404);
    // A sub-account sees no sub-accounts: not its parent, not a sibling.
    const sibling = await createSubaccount(t, parent);
    expect((await http(child.key).get(`${SUBS}/${sibling.username}`)).status).toBe(404);
    expect((await http(child.key).get(`${SUBS}/${parent.username}`)).status).toBe(404);
    expect((await http(child.key).get(SUBS)).body).toEqual({ subaccounts: [], next_cursor: null });
  });

  it('transfers credit both ways, exactly, with one ledger row per account naming the transfer', async () => {
    const parent = await createTenant(t, { balances: { sms: '100' } });
    const child = await createSubaccount(t, parent);
    const down = await http(parent.key).post(`${SUBS}/${child.username}/transfers`, {
      channel: 'sms',
      amount: '25.123456',
    });
    expect(down.status).toBe(200);
    expect(down.body).toEqual({
      transfer_id: expect.stringMatching(/^\d+$/),
      channel: 'sms',
      amount: 25.123456,
      parent_balance: 74.876544,
      subaccount_balance: 25.123456,
      currency: 'ZMW',
    });
    const up = await http(parent.key).post(`${SUBS}/${child.username}/transfers`, {
      channel: 'sms',
      amount: -0.123456,
    });
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ amount: -0.123456, parent_balance: 75, subaccount_balance: 25 });
    const rows = (await ledgerEntries(t, { transferId: down.body.transfer_id }, 'transfer')).sort(
      (x, y) => Number(x.amount) - Number(y.amount),
    );
    expect(rows.map((r) => [r.account_id, r.amount])).toEqual([
      [String(parent.account.id), '-25.123456'],
      [String(child.account.id), '25.123456'],
    ]);
    expect(await ledgerMismatches([parent.account.id, child.account.id])).toEqual([]);
  });

  it('refuses a transfer the paying balance cannot cover with 402 INSUFFICIENT_BALANCE naming whose, moving nothing', async () => {
    const parent = await createTenant(t, { balances: { sms: '5' } });
    const child = await createSubaccount(t, parent, { transfers: { sms: '2' } });
    const tooMuch = await http(parent.key).post(`${SUBS}/${child.username}/transfers`, {
      channel: 'sms',
      amount: 3.5,
    });
    expect(tooMuch.status).toBe(402);
    expect(tooMuch.body.error).toMatchObject({
      code: 'INSUFFICIENT_BALANCE',
      details: [{ field: 'amount', message: 'parent balance 3.000000 ZMW' }],
    });
    expect(tooMuch.body.message).toContain(`the parent account ${parent.username}`);
    const back = await http(parent.key).post(`${SUBS}/${child.username}/transfers`, {
      channel: 'sms',
      amount: -2.5,
    });
    expect(back.status).toBe(402);
    expect(back.body.error.details).toEqual([
      { field: 'amount', message: 'subaccount balance 2.000000 ZMW' },
    ]);
    expect(back.body.message).toContain(`the sub-account ${child.username}`);
    expect([await balanceOf(parent.account.id), await balanceOf(child.account.id)]).toEqual([
      '3.000000',
      '2.000000',
    ]);
    for (const amount of [0, '1.1234567', 'ten', null])
      expect(
        (await http(parent.key).post(`${SUBS}/${child.username}/transfers`, { channel: 'sms', amount }))
          .status,
      ).toBe(400);
    expect(
      (await http(parent.key).post(`${SUBS}/${child.username}/transfers`, { channel: 'fax', amount: 1 }))
        .status,
    ).toBe(400);
  });

  it('lets a child key move no money: transfers need the parent', async () => {
    const parent = await createTenant(t, { balances: { sms: '5' } });
    const child = await createSubaccount(t, parent, { transfers: { sms: '2' } });
    const res = await http(child.key).post(`${SUBS}/${child.username}/transfers`, {
      channel: 'sms',
      amount: 1,
    });
    expect(res.status).toBe(404);
    expect([await balanceOf(parent.account.id), await balanceOf(child.account.id)]).toEqual([
      '3.000000',
      '2.000000',
    ]);
  });

  it('never overdraws: of 20 concurrent transfers and sends against a parent balance that pays for 5, exactly 5 succeed', async () => {
    const parent = await createTenant(t, { balances: { sms: '5' }, prices: { sms: '1' } });
    const child = await createSubaccount(t, parent);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2
          ? http(parent.key).post(`${SUBS}/${child.username}/transfers`, { channel: 'sms', amount: 1 })
          : http(parent.key).post(SMS, {
              from: 'ACME',
              to: `2609715${String(i).padStart(5, '0')}`,
              message: 'x',
            }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 402)).toHaveLength(15);
    const transferred = answers.filter((a, i) => i % 2 === 1 && a.status === 200).length;
    expect(await balanceOf(parent.account.id)).toBe('0.000000');
    expect(await balanceOf(child.account.id)).toBe(`${transferred}.000000`);
    expect(await ledgerMismatches([parent.account.id, child.account.id])).toEqual([]);
  });

  it('never overdraws a sub-account: 20 concurrent sends by it and transfers back from it, balance for 5', async () => {
    const parent = await createTenant(t, { balances: { sms: '5' }, prices: { sms: '1' } });
    const child = await createSubaccount(t, parent, { transfers: { sms: '5' } });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2
          ? http(parent.key).post(`${SUBS}/${child.username}/transfers`, { channel: 'sms', amount: -1 })
          : http(child.key).post(SMS, {
              from: 'ACME',
              to: `2609716${String(i).padStart(5, '0')}`,
              message: 'x',
            }),
      ),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 402)).toHaveLength(15);
    const pulled = answers.filter((a, i) => i % 2 === 1 && a.status === 200).length;
    expect(await balanceOf(child.account.id)).toBe('0.000000');
    expect(await balanceOf(parent.account.id)).toBe(`${pulled}.000000`);
    expect(await ledgerMismatches([parent.account.id, child.account.id])).toEqual([]);
  });

  it('answers a repeated transfer with the same Idempotency-Key once, moving the credit once', async () => {
    const parent = await createTenant(t, { balances: { sms: '10' } });
    const child = await createSubaccount(t, parent);
    const send = () =>
      t
        .http()
        .post(`${SUBS}/${child.username}/transfers`)
        .set('X-API-Key', parent.key)
        .set('Idempotency-Key', 'move-once')
        .send({ channel: 'sms', amount: 4 });
    const first = await send();
    const again = await send();
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await balanceOf(child.account.id)).toBe('4.000000');
  });

  it('counts transfers in the metrics by channel, direction and outcome', async () => {
    const res = await t.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
    expect(res.status).toBe(200);
    for (const [direction, outcome] of [
      ['to_subaccount', 'done'],
      ['to_parent', 'done'],
      ['to_subaccount', 'insufficient'],
      ['to_parent', 'insufficient'],
    ])
      expect(res.text).toMatch(
        new RegExp(
          `bulk_transfers_total\\{channel="sms",direction="${direction}",outcome="${outcome}"\\} [1-9]`,
        ),
      );
  });

  it('leaves the store whole after all of the above: every balance the sum of its ledger, every charge matching its request', async () => {
    expect(await storeProblems(t)).toEqual([]);
    const transfers = await ledgerTotals(t, { kind: 'transfer' });
    // Every transfer moved as much out of one account as into the other.
    expect(Number(transfers.n)).toBeGreaterThan(0);
    expect(Number(transfers.total)).toBe(0);
  });
});
