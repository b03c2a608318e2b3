import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service.js';
import { InboundStore } from '../../src/modules/inbound/inbound.store.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { apiKeysNamed, inboundFrom, ledgerTotals, storedBalances } from '../support/account-probes.js';
import { startHttpPeer, type HttpPeer } from '../support/http-peer.js';
import { requestMessages, requestsOf } from '../support/message-probes.js';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer.js';
import { startMailChatApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { sendRequestFields } from '../support/probes.js';

const SMS = '/api/v1/json/bulk/sms';
const EMAIL = '/api/v1/json/bulk/email';
const CHAT = '/api/v1/json/bulk/chat';
const METRICS_TOKEN = 'metrics-token-test-keys-0123456789';
const FINAL = ['DELIVERED', 'UNDELIVERED', 'REJECTED', 'FAILED'];

describe('test keys', () => {
  let t: TestApp;
  let tenant: Tenant;
  let testKey: string;
  /** Real providers on loopback: a test request must never reach them. */
  let smtp: SmtpPeer;
  let chatApi: HttpPeer;
  let hooks: HttpPeer;

  const statesOf = (ref: string) => requestMessages(t, ref, 'recipient', 'status', 'reason', 'attempts');
  const settled = (ref: string) =>
    waitFor(
      async () => {
        const rows = await statesOf(ref);
        return rows.every((r) => FINAL.includes(r.status)) ? rows : null;
      },
      40_000,
      `every message of ${ref} in a final state`,
    );
  const money = async () => ({
    balances: await storedBalances(t, tenant.account.id),
    ledgerRows: (await ledgerTotals(t, { accountId: tenant.account.id })).n,
  });

  beforeAll(async () => {
    smtp = await startSmtpPeer();
    chatApi = await startHttpPeer();
    hooks = await startHttpPeer(() => ({ status: 204 }));
    t = await startMailChatApp(smtp.url, `${chatApi.url}/send`, {
      SANDBOX_DELIVERY_DELAY_MS: '100',
      CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
      CALLBACK_BACKOFF_BASE_MS: '50',
      METRICS_TOKEN: METRICS_TOKEN,
    });
    tenant = await createTenant(t, {
      balances: { sms: '100', email: '100', chat: '100' },
      prices: { sms: '0.5', email: '0.25', chat: '0.1' },
    });
    testKey = (
      await t.app.get(ApiKeysService).create({ username: tenant.username, name: 'sandbox', mode: 'test' })
    ).secret;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    await chatApi?.close();
    await hooks?.close();
  });

  it('a test key starts with bmk_test_ and is stored with mode test', async () => {
    expect(testKey.startsWith('bmk_test_')).toBe(true);
    const [row] = await apiKeysNamed(t, 'sandbox', tenant.account.id, 'mode');
    expect(row.mode).toBe('test');
  });

  it('answers a test send exactly as a live one (priced, REJECTED entries for bad numbers) but takes nothing from the balance and writes no ledger row', async () => {
    const before = await money();
    const body = { from: 'ACME', to: ['260971234567', 'not-a-number'], message: 'hello' };
    const res = await t.http().post(SMS).set('X-API-Key', testKey).send(body);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      api_reference: expect.stringMatching(/^\d{19}$/),
      data: [
        { mobile_number: '260971234567', status: 'ACKNOWLEDGED' },
        { mobile_number: 'not-a-number', status: 'REJECTED', reason: 'INVALID_NUMBER' },
      ],
    });
    const req = await sendRequestFields(t, res.body.api_reference, 'test_mode', 'cost');
    expect(req).toEqual({ test_mode: 1, cost: '0.500000' });
    await settled(res.body.api_reference);
    expect(await money()).toEqual(before);
  });

  it('decides each SMS outcome by the number: 0000 UNDELIVERED, 0002 REJECTED PROVIDER_REJECTED, 0003 FAILED after the retries, others DELIVERED, with a callback marked test for each change', async () => {
    const before = await money();
    const to = ['260971110000', '260971110002', '260971110003', '260971110004', '260971115555'];
    const res = await t
      .http()
      .post(SMS)
      .set('X-API-Key', testKey)
      .send({ from: 'ACME', to, message: 'outcomes', callback_url: `${hooks.url}/test-sms` });
    expect(res.status).toBe(200);
    const rows = await settled(res.body.api_reference);
    const by = Object.fromEntries(rows.map((r) => [r.recipient, r]));
    expect(by['260971110000']).toMatchObject({ status: 'UNDELIVERED', reason: 'TEST_UNDELIVERED' });
    expect(by['260971110002']).toMatchObject({ status: 'REJECTED', reason: 'PROVIDER_REJECTED' });
    expect(by['260971110003']).toMatchObject({ status: 'FAILED', reason: 'TEST_PROVIDER_ERROR' });
    expect(by['260971110003'].attempts).toBeGreaterThan(1);
    expect(by['260971110004'].status).toBe('DELIVERED');
    expect(by['260971115555'].status).toBe('DELIVERED');
    const finals = await waitFor(
      async () => {
        const got = hooks.requests
          .map((r) => r.json as { api_reference: string; recipient: string; status: string; reason: string })
          .filter((j) => j.api_reference === res.body.api_reference && FINAL.includes(j.status));
        return got.length >= to.length ? got : null;
      },
      15_000,
      'a final callback per message',
    );
    expect(Object.fromEntries(finals.map((f) => [f.recipient, f.status]))).toEqual({
      '260971110000': 'UNDELIVERED',
      '260971110002': 'REJECTED',
      '260971110003': 'FAILED',
      '260971110004': 'DELIVERED',
      '260971115555': 'DELIVERED',
    });
    // Every event of a test message says so, inside the signed body.
    const events = hooks.requests
      .map((r) => r.json as { api_reference: string; test?: unknown })
      .filter((j) => j.api_reference === res.body.api_reference);
    expect(events.map((e) => e.test)).toEqual(events.map(() => true));
    // FAILED and REJECTED refund live messages; a test message was never charged, so nothing moves.
    expect(await money()).toEqual(before);
  }, 60_000);

  it('decides each e-mail outcome by the local part (fail, reject, error, bounce) and never opens the SMTP server', async () => {
    const to = [
      'fail@example.com',
      'reject@example.com',
      'error@example.com',
      'bounce@example.com',
      'ok@example.com',
    ];
    const res = await t
      .http()
      .post(EMAIL)
      .set('X-API-Key', testKey)
      .send({ from: 'news@acme.com', to, subject: 'Hi', email_body: '<p>Hi</p>' });
    expect(res.status).toBe(200);
    const rows = await settled(res.body.api_reference);
    expect(Object.fromEntries(rows.map((r) => [r.recipient, [r.status, r.reason]]))).toEqual({
      'fail@example.com': ['UNDELIVERED', 'TEST_UNDELIVERED'],
      'reject@example.com': ['REJECTED', 'PROVIDER_REJECTED'],
      'error@example.com': ['FAILED', 'TEST_PROVIDER_ERROR'],
      'bounce@example.com': ['REJECTED', 'BOUNCE'],
      'ok@example.com': ['DELIVERED', null],
    });
    expect(smtp.messages).toHaveLength(0);
  }, 60_000);

  it('0004: DELIVERED, then one inbound STOP from that number to the sender id, on the test side only: it suppresses the number for test sends, not live ones, reaches the inbound webhook marked test, and gets no auto-reply (no loop)', async () => {
    await t.app.get(InboundStore).updateSettings(tenant.account.id, {
      inbound_url: `${hooks.url}/in`,
      reply_on_stop: 'You will hear no more from ACME.',
    });
    const before = await money();
    const to = '260971230004';
    const res = await t
      .http()
      .post(SMS)
      .set('X-API-Key', testKey)
      .send({ from: 'ACME', to, message: 'reply stop' });
    expect(res.status).toBe(200);
    expect((await settled(res.body.api_reference)).map((r) => r.status)).toEqual(['DELIVERED']);
    const inboundOf = async (key: string) =>
      (await t.http().get('/api/v1/json/inbound').set('X-API-Key', key)).body.data as Array<
        Record<string, unknown>
      >;
    const stop = await waitFor(
      async () => (await inboundOf(testKey)).find((r) => r.from === to),
      20_000,
      'the test recipient STOP',
    );
    expect(stop).toMatchObject({
      from: to,
      to: 'ACME',
      text: 'STOP',
      keyword: 'STOP',
      in_reply_to: res.body.data[0].message_id,
    });
    expect(await inboundOf(tenant.key)).toEqual([]);
    const hit = await waitFor(
      async () => hooks.requests.find((q) => (q.json as { from?: string })?.from === to),
      20_000,
      'the inbound webhook for the test STOP',
    );
    expect(hit.json).toMatchObject({ type: 'inbound.sms', text: 'STOP', keyword: 'STOP', test: true });
    // The test recipient's STOP is the test transport's own message: no auto-reply, so no reply
    // for the recipient to answer again. Well past a few delivery delays, still one STOP, no reply.
    await new Promise((r) => setTimeout(r, 1500));
    expect(await inboundFrom(t, tenant.account.id, [to], 'reply_text')).toEqual([{ reply_text: null }]);
    const replies = (await requestsOf(t, tenant.account.id, 'user_reference_id')).filter((r) =>
      String(r.user_reference_id).startsWith('auto-reply-'),
    );
    expect(replies).toHaveLength(0);
    expect(await money()).toEqual(before);

    const listOf = async (key: string) =>
      (await t.http().get('/api/v1/json/suppressions').set('X-API-Key', key)).body.data as Array<{
        recipient: string;
        reason: string;
      }>;
    expect(await listOf(testKey)).toContainEqual(
      expect.objectContaining({ recipient: to, reason: 'STOP_KEYWORD' }),
    );
    expect((await listOf(tenant.key)).map((r) => r.recipient)).not.toContain(to);
    const again = await t
      .http()
      .post(SMS)
      .set('X-API-Key', testKey)
      .send({ from: 'ACME', to: [to, '260971230005'], message: 'again' });
    expect(again.body.data.map((d: { status: string; reason?: string }) => [d.status, d.reason])).toEqual([
      ['REJECTED', 'SUPPRESSED'],
      ['ACKNOWLEDGED', undefined],
    ]);
    const live = await t
      .http()
      .post(SMS)
      .set('X-API-Key', tenant.key)
      .send({ from: 'ACME', to, message: 'live' });
    expect(live.body.data[0].status).toBe('ACKNOWLEDGED');
  }, 60_000);

  it('bounce: REJECTED BOUNCE and the address suppressed on the test list only, so a second test send is refused and a live one is not', async () => {
    const to = 'bounce@mail.example.org';
    const send = (key: string) =>
      t
        .http()
        .post(EMAIL)
        .set('X-API-Key', key)
        .send({ from: 'news@acme.com', to, subject: 'Hi', email_body: 'x' });
    const first = await send(testKey);
    expect(first.status).toBe(200);
    expect((await settled(first.body.api_reference)).map((r) => [r.status, r.reason])).toEqual([
      ['REJECTED', 'BOUNCE'],
    ]);
    const listed = async (key: string) =>
      (
        (await t.http().get('/api/v1/json/suppressions?channel=email').set('X-API-Key', key)).body
          .data as Array<{
          recipient: string;
          reason: string;
        }>
      ).filter((r) => r.recipient === to);
    expect((await listed(testKey)).map((r) => r.reason)).toEqual(['BOUNCE']);
    expect(await listed(tenant.key)).toEqual([]);
    const second = await send(testKey);
    expect(second.status).toBe(400);
    expect(second.body.error.details[0].message).toBe('SUPPRESSED');
    const live = await send(tenant.key);
    expect(live.status).toBe(200);
    expect(live.body.data[0].status).toBe('ACKNOWLEDGED');
  }, 60_000);

  it('never calls the chat provider for a test request', async () => {
    const res = await t
      .http()
      .post(CHAT)
      .set('X-API-Key', testKey)
      .send({
        username: tenant.username,
        password: tenant.password,
        senderid: '260971000000',
        message: 'Hello',
        recipient: ['260971234567', '260971230000'],
      });
    expect(res.status).toBe(200);
    const rows = await settled(res.body.reference);
    expect(rows.map((r) => r.status)).toEqual(['DELIVERED', 'UNDELIVERED']);
    expect(chatApi.requests).toHaveLength(0);
  });

  it('keeps test and live data apart: neither kind of key finds the other kind of message or request', async () => {
    const live = await t
      .http()
      .post(SMS)
      .set('X-API-Key', tenant.key)
      .send({ from: 'ACME', to: '260971234567', message: 'live' });
    const test = await t
      .http()
      .post(SMS)
      .set('X-API-Key', testKey)
      .send({ from: 'ACME', to: '260971234567', message: 'test' });
    const liveId = live.body.data[0].message_id;
    const testId = test.body.data[0].message_id;
    const get = (path: string, key: string) => t.http().get(path).set('X-API-Key', key);
    expect((await get(`/api/v1/json/messages/${liveId}`, tenant.key)).status).toBe(200);
    expect((await get(`/api/v1/json/messages/${testId}`, testKey)).status).toBe(200);
    expect((await get(`/api/v1/json/messages/${liveId}`, testKey)).status).toBe(404);
    expect((await get(`/api/v1/json/messages/${testId}`, tenant.key)).status).toBe(404);
    const list = (ref: string, key: string) => get(`/api/v1/json/messages?api_reference=${ref}`, key);
    expect((await list(test.body.api_reference, testKey)).body.total).toBe(1);
    expect((await list(live.body.api_reference, testKey)).status).toBe(404);
    expect((await list(test.body.api_reference, tenant.key)).status).toBe(404);
  });

  it('keeps user_reference_id apart too: the same reference under a test and a live key makes two requests, neither a replay nor a conflict', async () => {
    const body = { from: 'ACME', to: '260971234567', message: 'idem', user_reference_id: 'shared-ref-1' };
    const live = await t.http().post(SMS).set('X-API-Key', tenant.key).send(body);
    const test = await t
      .http()
      .post(SMS)
      .set('X-API-Key', testKey)
      .send({ ...body, message: 'different body' });
    expect(live.status).toBe(200);
    expect(test.status).toBe(200);
    expect(test.body.api_reference).not.toBe(live.body.api_reference);
    const again = await t
      .http()
      .post(SMS)
      .set('X-API-Key', testKey)
      .send({ ...body, message: 'different body' });
    expect(again.body.api_reference).toBe(test.body.api_reference);
  });

  it('shows the live balance to a test key', async () => {
    const asTest = await t
      .http()
      .post('/api/v1/json/balance')
      .set('X-API-Key', testKey)
      .send({ username: tenant.username, password: tenant.password });
    const asLive = await t
      .http()
      .post('/api/v1/json/balance')
      .set('X-API-Key', tenant.key)
      .send({ username: tenant.username, password: tenant.password });
    expect(asTest.status).toBe(200);
    expect(asTest.body.balances).toEqual(asLive.body.balances);
  });

  it('accepts a test send when the live balance could not pay for it', async () => {
    const poor = await createTenant(t, { balances: { sms: '0' }, prices: { sms: '1' } });
    const { secret } = await t.app
      .get(ApiKeysService)
      .create({ username: poor.username, name: 'sandbox', mode: 'test' });
    const send = (key: string) =>
      t.http().post(SMS).set('X-API-Key', key).send({ from: 'ACME', to: '260971234567', message: 'x' });
    expect((await send(poor.key)).body.error.code).toBe('INSUFFICIENT_BALANCE');
    expect((await send(secret)).status).toBe(200);
  });

  it('documents SPEND_LIMIT_EXCEEDED among the 402 answers of every send route', async () => {
    const doc = (await t.http().get('/docs-json')).body;
    for (const path of [SMS, EMAIL, CHAT]) {
      const examples = doc.paths[path].post.responses['402'].content['application/json'].examples;
      expect(Object.keys(examples)).toEqual(
        expect.arrayContaining(['INSUFFICIENT_BALANCE', 'SPEND_LIMIT_EXCEEDED']),
      );
    }
  });

  it('counts test requests in the metrics', async () => {
    const res = await t.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
    expect(res.text).toMatch(/bulk_test_requests_total\{channel="sms"\} [1-9]/);
    expect(res.text).toMatch(/bulk_test_requests_total\{channel="email"\} [1-9]/);
  });
});
