import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountsService } from '../../src/modules/accounts/accounts.service.js';
import { createSubaccount, createTenant, type Tenant } from '../factories/account.factory.js';
import { runCli } from '../support/cli-in-process.js';
import { fallbackDueNow as dueNow } from '../support/clock.js';
import { startHttpPeer, type HttpPeer } from '../support/http-peer.js';
import { fallbacksOf, requestMessages } from '../support/message-probes.js';
import { balanceOf } from '../support/probes.js';
import type { Channel } from '../../src/modules/messages/channel.js';
import { startTestApp, testEnv, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { MessageStateService } from '../../src/modules/delivery/lifecycle/message-state.service.js';
import { FallbackScanner } from '../../src/modules/sending/fallback/fallback.scanner.js';
import { CountriesService } from '../../src/modules/fraud/countries/countries.service.js';

const CHAT = '/api/v1/json/bulk/chat';

interface Row {
  id: string;
  uuid: string;
  channel: string;
  recipient: string;
  status: string;
  reason: string | null;
  body: string | null;
  fallback_due_at: Date | null;
  fallback_of: string | null;
}

const chatRows = (t: TestApp, ref: string): Promise<Row[]> =>
  requestMessages(
    t,
    ref,
    'id',
    'uuid',
    'channel',
    'recipient',
    'status',
    'reason',
    'body',
    'fallback_due_at',
    'fallback_of',
  );

/** The fallback SMS of one chat message, with its request's sender, body and callback. */
const fallbackOf = (t: TestApp, chatId: string) => fallbacksOf(t, [chatId]);

const balance = async (t: TestApp, tenant: Tenant, channel: Channel) =>
  Number(await balanceOf(t, tenant.account.id, channel));

describe('chat-to-SMS fallback', () => {
  let t: TestApp;
  let tenant: Tenant;
  let hooks: HttpPeer;

  beforeAll(async () => {
    hooks = await startHttpPeer(() => ({ status: 204 }));
    t = await startTestApp({
      RUN_WORKERS: 'true',
      // Chat messages stay SENT (no receipt) unless a test applies one.
      SANDBOX_DELIVERY_DELAY_MS: '600000',
      FALLBACK_POLL_MS: '100',
      SCHEDULE_POLL_MS: '100',
      CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
      CALLBACK_BACKOFF_BASE_MS: '50',
    });
    tenant = await createTenant(t, {
      balances: { sms: '100', chat: '100' },
      prices: { sms: '0.25', chat: '1' },
    });
  });
  afterAll(async () => {
    await t?.close();
    await hooks?.close();
  });

  const chat = (body: Record<string, unknown>, who = tenant) =>
    t
      .http()
      .post(CHAT)
      .set('X-API-Key', who.key)
      .send({
        username: who.username,
        password: who.password,
        senderid: '260970000001',
        message: 'Your parcel is at the depot',
        ...body,
      });
  const states = () => t.app.get(MessageStateService);

  it('refuses a malformed fallback with 400 VALIDATION_ERROR naming each field', async () => {
    const res = await chat({
      recipient: ['260971234567'],
      fallback: { channel: 'email', after_seconds: 5, sender: 'x' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'fallback.after_seconds',
      'fallback.channel',
      'fallback.sender',
    ]);
    const sender = await chat({
      recipient: ['260971234567'],
      fallback: { channel: 'sms', after_seconds: 60, from: 'NOT A VALID SENDER' },
    });
    expect(sender.status).toBe(400);
    expect(sender.body.error.details[0].field).toBe('fallback.from');
  });

  it('sends an ordinary, charged SMS when the chat message is not DELIVERED within after_seconds, linked both ways', async () => {
    const smsBefore = await balance(t, tenant, 'sms');
    const res = await chat({
      recipient: ['260971230001', '260971230002'],
      callback_url: `${hooks.url}/events`,
      fallback: { channel: 'sms', after_seconds: 30, from: 'ACME' },
    });
    expect(res.status).toBe(200);
    const [a, b] = await chatRows(t, res.body.reference);
    const created = Date.now();
    // Due after_seconds after acceptance.
    expect(Math.abs(new Date(a!.fallback_due_at!).getTime() - (created + 30_000))).toBeLessThan(5000);
    await waitFor(async () => (await chatRows(t, res.body.reference))[0]!.status === 'SENT');
    await dueNow(t, [a!.id]);
    await waitFor(async () => (await fallbackOf(t, a!.id)).length === 1);
    const [sms] = await fallbackOf(t, a!.id);
    expect(sms).toMatchObject({
      recipient: '260971230001',
      sender: 'ACME',
      body: 'Your parcel is at the depot',
      callback_url: `${hooks.url}/events`,
    });
    expect(Number(sms!.cost)).toBe(0.25);
    expect(await balance(t, tenant, 'sms')).toBeCloseTo(smsBefore - 0.25, 6);
    // The other recipient's is not due yet.
    expect(await fallbackOf(t, b!.id)).toEqual([]);

    const chatLookup = await t.http().get(`/api/v1/json/messages/${a!.uuid}`).set('X-API-Key', tenant.key);
    expect(chatLookup.body.fallback).toEqual({ message_id: sms!.uuid, status: expect.any(String) });
    const smsLookup = await t.http().get(`/api/v1/json/messages/${sms!.uuid}`).set('X-API-Key', tenant.key);
    expect(smsLookup.body).toMatchObject({ channel: 'sms', fallback_of: a!.uuid });
    expect(smsLookup.body.fallback).toBeUndefined();
    await waitFor(async () => (await chatRows(t, res.body.reference))[0]!.fallback_due_at === null);

    // The chat request's callback URL hears of the SMS too.
    await waitFor(async () =>
      hooks.requests.some((r) => (r.json as { message_id?: string })?.message_id === sms!.uuid),
    );
    const event = hooks.requests.find((r) => (r.json as { message_id?: string })?.message_id === sms!.uuid)!;
    expect(event.json).toMatchObject({ channel: 'sms', recipient: '260971230001' });

    // Delivered late: nothing changes, both stay charged.
    const chatBefore = await balance(t, tenant, 'chat');
    const smsNow = await balance(t, tenant, 'sms');
    await states().apply([{ id: a!.id, status: 'DELIVERED' }]);
    await new Promise((r) => setTimeout(r, 400));
    expect(await fallbackOf(t, a!.id)).toHaveLength(1);
    expect(await balance(t, tenant, 'chat')).toBe(chatBefore);
    expect(await balance(t, tenant, 'sms')).toBe(smsNow);
  });

  it('sends the SMS at once when the chat message ends UNDELIVERED, REJECTED, FAILED or EXPIRED before', async () => {
    const res = await chat({
      recipient: ['260971231001', '260971231002'],
      fallback: { channel: 'sms', after_seconds: 3600, message: 'Parcel at the depot (SMS)' },
    });
    const [a, b] = await chatRows(t, res.body.reference);
    await waitFor(async () => (await chatRows(t, res.body.reference)).every((r) => r.status === 'SENT'));
    await states().apply([
      { id: a!.id, status: 'UNDELIVERED' },
      { id: b!.id, status: 'DELIVERED' },
    ]);
    await waitFor(async () => (await fallbackOf(t, a!.id)).length === 1);
    const [sms] = await fallbackOf(t, a!.id);
    // From the chat's sender id by default, with the fallback's own text.
    expect(sms).toMatchObject({ sender: '260970000001', body: 'Parcel at the depot (SMS)' });
    // Delivered in time: no fallback, nothing left due.
    const [, delivered] = await chatRows(t, res.body.reference);
    expect(delivered!.fallback_due_at).toBeNull();
    await t.app.get(FallbackScanner).scan();
    expect(await fallbackOf(t, b!.id)).toEqual([]);
  });

  it('counts after_seconds from send_at for a scheduled chat, and makes the SMS even while the chat still waits', async () => {
    const sendAt = new Date(Date.now() + 86_400_000);
    sendAt.setUTCMilliseconds(0);
    const res = await chat({
      recipient: ['260971232001'],
      send_at: sendAt.toISOString(),
      fallback: { channel: 'sms', after_seconds: 600 },
    });
    const [a] = await chatRows(t, res.body.reference);
    expect(new Date(a!.fallback_due_at!).getTime()).toBe(sendAt.getTime() + 600_000);
    await dueNow(t, [a!.id]);
    await waitFor(async () => (await fallbackOf(t, a!.id)).length === 1);
  });

  /** A chat of `smsBalance`'s tenant with a fallback, made due at once (after `beforeDue`): the chat row and its SMS. */
  const dueFallback = async (
    smsBalance: string,
    recipient: string,
    beforeDue?: (who: Tenant) => Promise<unknown>,
  ) => {
    const who = await createTenant(t, {
      balances: { sms: smsBalance, chat: '10' },
      prices: { sms: '0.25', chat: '1' },
    });
    const res = await chat({ recipient: [recipient], fallback: { channel: 'sms', after_seconds: 60 } }, who);
    expect(res.status).toBe(200);
    const [a] = await chatRows(t, res.body.reference);
    await beforeDue?.(who);
    await dueNow(t, [a!.id]);
    await waitFor(async () => (await fallbackOf(t, a!.id)).length === 1);
    const [sms] = await fallbackOf(t, a!.id);
    return { who, a: a!, sms: sms! };
  };

  it('stores the SMS REJECTED, INSUFFICIENT_BALANCE, when the SMS balance cannot pay it then', async () => {
    const { who: poor, a, sms } = await dueFallback('0', '260971233001');
    expect(sms).toMatchObject({ status: 'REJECTED', reason: 'INSUFFICIENT_BALANCE' });
    expect(Number(sms.cost)).toBe(0);
    expect(await balance(t, poor, 'sms')).toBe(0);
    const lookup = await t.http().get(`/api/v1/json/messages/${a.uuid}`).set('X-API-Key', poor.key);
    expect(lookup.body.fallback).toEqual({ message_id: sms.uuid, status: 'REJECTED' });
  });

  it('stores the SMS REJECTED, COUNTRY_NOT_ALLOWED, when the account may no longer reach the number', async () => {
    const { who, sms } = await dueFallback('10', '260971233101', (limited) =>
      t.app.get(CountriesService).change(limited.username, { mode: 'allow', countries: ['KE'] }),
    );
    expect(sms).toMatchObject({ status: 'REJECTED', reason: 'COUNTRY_NOT_ALLOWED' });
    expect(Number(sms.cost)).toBe(0);
    expect(await balance(t, who, 'sms')).toBe(10);
  });

  it('makes one SMS per chat message however many scans race for it', async () => {
    const res = await chat({
      recipient: Array.from({ length: 20 }, (_, i) => `2609712340${String(i).padStart(2, '0')}`),
      fallback: { channel: 'sms', after_seconds: 60 },
    });
    const rows = await chatRows(t, res.body.reference);
    await dueNow(
      t,
      rows.map((r) => r.id),
    );
    const scanner = t.app.get(FallbackScanner);
    await Promise.all([scanner.scan(), scanner.scan(), scanner.scan()]);
    await waitFor(
      async () =>
        (
          await fallbacksOf(
            t,
            rows.map((r) => r.id),
          )
        ).length === 20,
    );
    // Due again (as after a lost lease): nothing new.
    await dueNow(
      t,
      rows.map((r) => r.id),
    );
    await scanner.scan();
    expect(
      await fallbacksOf(
        t,
        rows.map((r) => r.id),
      ),
    ).toHaveLength(20);
  });

  it('makes a test SMS for a test chat message, charging nothing, and counts fallbacks in /metrics', async () => {
    const tester = await createTenant(t, {
      balances: { sms: '5', chat: '5' },
      prices: { sms: '0.25', chat: '1' },
      key: { mode: 'test' },
    });
    const res = await chat(
      { recipient: ['260971236001'], fallback: { channel: 'sms', after_seconds: 60 } },
      tester,
    );
    expect(res.status).toBe(200);
    const [a] = await chatRows(t, res.body.reference);
    await dueNow(t, [a!.id]);
    await waitFor(async () => (await fallbackOf(t, a!.id)).length === 1);
    const [sms] = await fallbackOf(t, a!.id);
    expect(Number(sms!.test_mode)).toBe(1);
    expect(await balance(t, tester, 'sms')).toBe(5);
    expect(await balance(t, tester, 'chat')).toBe(5);
    const metrics = await t.http().get('/metrics');
    expect(metrics.text).toMatch(/bulk_fallbacks_created_total\{status="ACKNOWLEDGED"\} [1-9]/);
    expect(metrics.text).toMatch(/bulk_fallbacks_created_total\{status="REJECTED"\} [1-9]/);
  });

  it('links the chat message and its SMS both ways in the search, the API exports (CSV, NDJSON) and the CLI export', async () => {
    const recipient = '260971237001';
    const res = await chat({ recipient: [recipient], fallback: { channel: 'sms', after_seconds: 3600 } });
    const [c] = await chatRows(t, res.body.reference);
    await waitFor(async () => (await chatRows(t, res.body.reference))[0]!.status === 'SENT');
    await states().apply([{ id: c!.id, status: 'UNDELIVERED' }]);
    await waitFor(async () => (await fallbackOf(t, c!.id))[0]?.status === 'SENT');
    const smsId = String((await fallbackOf(t, c!.id))[0]!.uuid);
    // An ordinary SMS to the same number, linked to nothing.
    const plain = await t
      .http()
      .post('/api/v1/json/bulk/sms')
      .set('X-API-Key', tenant.key)
      .send({ from: 'ACME', to: [recipient], message: 'no link' });
    const plainId = plain.body.data[0].message_id as string;
    const get = (path: string) => t.http().get(path).set('X-API-Key', tenant.key).buffer(true);

    const search = await get(`/api/v1/json/messages?recipient=${recipient}`);
    expect(search.status).toBe(200);
    const items = search.body.data as Array<Record<string, unknown>>;
    expect(items.map((m) => m.message_id)).toEqual([c!.uuid, smsId, plainId]);
    expect(items[0]).toMatchObject({ channel: 'chat', fallback: { message_id: smsId, status: 'SENT' } });
    expect(items[1]).toMatchObject({ channel: 'sms', fallback_of: c!.uuid });
    expect([items[0]!.fallback_of, items[1]!.fallback, items[2]!.fallback, items[2]!.fallback_of]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    // Each search item is the message's lookup without its history.
    for (const item of items.slice(0, 2)) {
      const { history, ...view } = (await get(`/api/v1/json/messages/${item.message_id}`)).body;
      expect(history).toBeInstanceOf(Array);
      expect(item).toEqual(view);
    }

    const links = [
      [c!.uuid, smsId, null],
      [smsId, null, c!.uuid],
      [plainId, null, null],
    ];
    const ndjson = await get(`/api/v1/json/messages/export?format=ndjson&recipient=${recipient}`);
    expect(ndjson.status).toBe(200);
    const rows = ndjson.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.map((r) => [r.message_id, r.fallback_message_id, r.fallback_of])).toEqual(links);
    expect(Object.keys(rows[0]!).slice(-3)).toEqual([
      'fallback_message_id',
      'fallback_of',
      'smpp_message_id',
    ]);

    const csv = await get(`/api/v1/json/messages/export?format=csv&recipient=${recipient}`);
    const [header, ...lines] = csv.text.trimEnd().split('\n');
    expect(header!.split(',').slice(0, 12).join(',')).toBe(
      'message_id,api_reference,user_reference_id,channel,recipient,status,reason,units,cost,currency,created_at,updated_at',
    );
    expect(header!.split(',').slice(12)).toEqual(['fallback_message_id', 'fallback_of', 'smpp_message_id']);
    expect(lines.map((l) => [l.split(',')[0], ...l.split(',').slice(12, 14)])).toEqual(
      links.map(([id, to, of]) => [id, to ?? '', of ?? '']),
    );

    const dir = mkdtempSync(join(tmpdir(), 'fallback-export-'));
    try {
      const file = join(dir, 'links.ndjson');
      const cli = await runCli(testEnv(t.name), [
        'messages',
        'export',
        '--username',
        tenant.username,
        '--format',
        'ndjson',
        '--recipient',
        recipient,
        '--output',
        file,
      ]);
      expect(cli.code).toBe(0);
      const fromCli = readFileSync(file, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(fromCli).toEqual(rows);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prices only the chat messages in the preview', async () => {
    const res = await t
      .http()
      .post(`${CHAT}/preview`)
      .set('X-API-Key', tenant.key)
      .send({
        username: tenant.username,
        password: tenant.password,
        senderid: '260970000001',
        message: 'hi',
        recipient: ['260971235001'],
        fallback: { channel: 'sms', after_seconds: 60 },
      });
    expect(res.status).toBe(200);
    expect(res.body.totals).toMatchObject({ accepted: 1, units: 1, cost: 1 });
  });
  it("makes no fallback, and charges none, for a sub-account's chat once its parent is suspended", async () => {
    const parent = await createTenant(t, {
      balances: { sms: '100', chat: '100' },
      prices: { sms: '0.25', chat: '1' },
    });
    const child = await createSubaccount(t, parent, { transfers: { sms: '10', chat: '10' } });
    const password = 'sub-account-password-1';
    await t.app.get(AccountsService).changePassword(child.username, password);
    const res = await chat(
      { recipient: ['260971239001'], fallback: { channel: 'sms', after_seconds: 3600 } },
      { ...child, password },
    );
    expect(res.status).toBe(200);
    const [a] = await chatRows(t, res.body.reference);
    const sms = await balance(t, child as Tenant, 'sms');
    const env = testEnv(t.name);
    expect((await runCli(env, ['accounts', 'suspend', parent.username])).code).toBe(0);
    try {
      await dueNow(t, [a!.id]);
      await t.app.get(FallbackScanner).scan();
      expect(await fallbackOf(t, a!.id)).toEqual([]);
      expect(await balance(t, child as Tenant, 'sms')).toBe(sms);
      // Settled: nothing left due, so no SMS follows once the parent is active again.
      expect((await chatRows(t, res.body.reference))[0]!.fallback_due_at).toBeNull();
    } finally {
      await runCli(env, ['accounts', 'activate', parent.username]);
    }
  });
});
