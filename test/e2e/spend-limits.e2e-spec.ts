import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Channel } from '../../src/modules/messages/channel.js';
import { ApiKeyCache } from '../../src/modules/api-keys/api-key-cache.js';
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service.js';
import { AccountsService } from '../../src/modules/accounts/accounts.service.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { startHttpPeer, type HttpPeer } from '../support/http-peer.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { balanceOf as balanceIn, messagesOfRequest, sendRequestCount } from '../support/probes.js';

const SMS = '/api/v1/json/bulk/sms';
const CHAT = '/api/v1/json/bulk/chat';
const METRICS_TOKEN = 'metrics-token-spend-limits-0123456789';
/** The chat provider refuses this number for good: the message ends REJECTED and is refunded. */
const REFUSED = '260971239999';

describe('daily spend limits', () => {
  let t: TestApp;
  let chatApi: HttpPeer;

  const sms = (key: string, to: string | string[], extra: object = {}) =>
    t
      .http()
      .post(SMS)
      .set('X-API-Key', key)
      .send({ from: 'ACME', to, message: 'x', ...extra });
  const balanceOf = (tenant: Tenant, channel: Channel = 'sms') => balanceIn(t, tenant.account.id, channel);
  const spent = async (scope: 'account' | 'key', id: string) =>
    ((
      await t.ds.query(
        'SELECT spent FROM daily_spend WHERE scope = ? AND owner_id = ? AND day = UTC_DATE()',
        [scope, id],
      )
    )[0]?.spent ?? '0.000000') as string;
  const requestsOf = (tenant: Tenant) => sendRequestCount(t, tenant.account.id);

  beforeAll(async () => {
    chatApi = await startHttpPeer((req) =>
      (req.json as { to?: string })?.to === REFUSED
        ? { status: 400, body: { error: 'bad number' } }
        : { status: 202, body: { id: `chat-${Date.now()}-${Math.random()}` } },
    );
    t = await startTestApp({
      RUN_WORKERS: 'true',
      SANDBOX_DELIVERY_DELAY_MS: '100',
      CHAT_TRANSPORT: 'http',
      CHAT_API_URL: `${chatApi.url}/send`,
      METRICS_TOKEN,
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await chatApi?.close();
  });

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

  it('accepts exactly 5 of 20 concurrent sends when the limit pays for 5, and spends exactly the limit', async () => {
    const tenant = await createTenant(t, {
      balances: { sms: '100' },
      prices: { sms: '0.5' },
      key: { dailyLimit: '2.50' },
    });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => sms(tenant.key, `26097155${String(i).padStart(4, '1')}`)),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 402)).toHaveLength(15);
    for (const a of answers.filter((x) => x.status === 402))
      expect(a.body.error.code).toBe('SPEND_LIMIT_EXCEEDED');
    expect(await requestsOf(tenant)).toBe(5);
    expect(await spent('key', tenant.apiKey.id)).toBe('2.500000');
    expect(await balanceOf(tenant)).toBe('97.500000');
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

  it('gives the room back when a charged message is refunded', async () => {
    const tenant = await createTenant(t, {
      balances: { chat: '100' },
      prices: { chat: '1' },
      key: { dailyLimit: '1' },
    });
    const chat = (to: string) =>
      t
        .http()
        .post(CHAT)
        .set('X-API-Key', tenant.key)
        .send({
          username: tenant.username,
          password: tenant.password,
          senderid: '260971000000',
          message: 'Hello',
          recipient: [to],
        });
    // Held back until the limit is seen reached; then the provider refuses it and it is refunded.
    await t.queue('chat').pause(true);
    const refused = await chat(REFUSED);
    expect(refused.status).toBe(200);
    expect((await chat('260971234567')).status).toBe(402);
    await t.queue('chat').resume(true);
    await waitFor(
      async () => {
        const [m] = await messagesOfRequest(t, refused.body.reference);
        return m.status === 'REJECTED';
      },
      15_000,
      'REJECTED',
    );
    expect(await spent('key', tenant.apiKey.id)).toBe('0.000000');
    expect(await spent('account', tenant.account.id)).toBe('0.000000');
    expect((await chat('260971234567')).status).toBe(200);
  });

  it('counts nothing from a test key toward any limit, nor refuses it', async () => {
    const tenant = await createTenant(t, { balances: { sms: '100' }, prices: { sms: '1' } });
    await t.app.get(AccountsService).setDailyLimit(tenant.username, '0');
    const { secret, apiKey } = await t.app
      .get(ApiKeysService)
      .create({ username: tenant.username, name: 'sandbox', mode: 'test', dailyLimit: '0' });
    t.app.get(ApiKeyCache).clear();
    expect((await sms(secret, ['260971000001', '260971000002'])).status).toBe(200);
    expect((await sms(tenant.key, '260971000003')).status).toBe(402);
    expect(await spent('key', apiKey.id)).toBe('0.000000');
    expect(await spent('account', tenant.account.id)).toBe('0.000000');
  });

  it('counts refusals in the metrics, by the limit that refused', async () => {
    const res = await t.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
    expect(res.text).toMatch(/bulk_spend_limit_refusals_total\{scope="key"\} [1-9]/);
    expect(res.text).toMatch(/bulk_spend_limit_refusals_total\{scope="account"\} [1-9]/);
  });
});
