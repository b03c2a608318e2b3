import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Channel } from '../../src/modules/messages/channel.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { startHttpPeer, type HttpPeer } from '../support/http-peer.js';
import { overdueAndExpired } from '../support/clock.js';
import { requestMessages } from '../support/message-probes.js';
import { storeProblems } from '../support/store-invariants.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import {
  balanceOf,
  ledgerAmounts,
  messagesOfRequest,
  sendRequestFields,
  statusesOfRequest,
} from '../support/probes.js';

const SMS = '/api/v1/json/bulk/sms';
const EMAIL = '/api/v1/json/bulk/email';
const CHAT = '/api/v1/json/bulk/chat';
const XML = '/api/v1/xml/bulk/sms';
const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();
/** A whole hour `days` ahead, in UTC with milliseconds. */
const daysAhead = (days: number) => {
  const d = new Date(Date.now() + days * 86_400_000);
  d.setUTCMinutes(0, 0, 0);
  return d.toISOString();
};
/** The same instant written with a UTC offset of `hours`. */
const withOffset = (iso: string, hours: number) => {
  const local = new Date(Date.parse(iso) + hours * 3_600_000).toISOString().slice(0, 19);
  const sign = hours < 0 ? '-' : '+';
  return `${local}${sign}${String(Math.abs(hours)).padStart(2, '0')}:00`;
};
const plusSeconds = (iso: string, s: number) => new Date(Date.parse(iso) + s * 1000).toISOString();
const numbers = (n: number, base: number) =>
  Array.from({ length: n }, (_, i) => `26097${String(base + i).padStart(7, '0')}`);

const statuses = statusesOfRequest;

async function balance(t: TestApp, tenant: Tenant, channel: Channel = 'sms'): Promise<number> {
  return Number(await balanceOf(t, tenant.account.id, channel));
}

describe('scheduled sends, validity and cancellation (sandbox)', () => {
  let t: TestApp;
  let tenant: Tenant;
  let other: Tenant;
  let hooks: HttpPeer;

  beforeAll(async () => {
    hooks = await startHttpPeer(() => ({ status: 204 }));
    t = await startTestApp({
      RUN_WORKERS: 'true',
      SANDBOX_DELIVERY_DELAY_MS: '100',
      SCHEDULE_POLL_MS: '100',
      SWEEP_INTERVAL_MS: '300',
      CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
      CALLBACK_BACKOFF_BASE_MS: '50',
    });
    tenant = await createTenant(t, {
      balances: { sms: '1000', email: '1000', chat: '1000' },
      prices: { sms: '0.25', email: '0.5', chat: '1' },
    });
    other = await createTenant(t);
  });
  afterAll(async () => {
    await t?.close();
    await hooks?.close();
  });

  const sms = (body: Record<string, unknown>, key = tenant.key) =>
    t
      .http()
      .post(SMS)
      .set('X-API-Key', key)
      .send({ from: 'ACME', message: 'later', ...body });

  // The rules themselves (each bad value below, nothing stored or charged, a past send_at sent at
  // once, a schedule the balance cannot pay) hold for every channel and are proven once, for each,
  // in test/integration/channel-requests.int-spec.ts; here, the HTTP answers.
  describe('validation', () => {
    const bad: Array<[string, Record<string, unknown>, string]> = [
      ['a send_at without Z or an offset', { send_at: '2026-12-01T10:00:00' }, 'send_at'],
      ['a send_at that is not a date', { send_at: 'tomorrow' }, 'send_at'],
      ['a send_at more than 35 days ahead', { send_at: inSeconds(36 * 86400) }, 'send_at'],
      ['a validity_period under 60 s', { validity_period: 59 }, 'validity_period'],
      ['a validity_period over 7 days', { validity_period: 604801 }, 'validity_period'],
      ['a validity_period that is not a whole number', { validity_period: 90.5 }, 'validity_period'],
    ];

    it.each(bad)('refuses %s with 400 VALIDATION_ERROR naming the field', async (_, extra, field) => {
      const res = await sms({ to: '260971234567', ...extra });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it('refuses a bad send_at or validity_period in XML with 400 VALIDATION_ERROR', async () => {
      for (const extra of ['<send_at>2030-01-01 10:00</send_at>', '<validity_period>30</validity_period>']) {
        const res = await t
          .http()
          .post(XML)
          .set('X-API-Key', tenant.key)
          .set('Content-Type', 'application/xml')
          .send(
            `<request><from>ACME</from><to>260971234567</to><message>m</message><source>API</source>${extra}</request>`,
          );
        expect(res.status).toBe(400);
        expect(res.text).toContain('<code>VALIDATION_ERROR</code>');
      }
    });
  });

  it('answers a scheduled SMS with SCHEDULED entries and send_at in UTC with milliseconds, charges it at once and does not send it early', async () => {
    const before = await balance(t, tenant);
    const at = daysAhead(10);
    const res = await sms({ to: ['260971230001', '260971230002', '0123'], send_at: withOffset(at, 2) });
    expect(res.status).toBe(200);
    expect(res.body.send_at).toBe(at);
    expect(res.body.send_at).toMatch(ISO_UTC_MS);
    expect(res.body.data.map((d: { status: string }) => d.status)).toEqual([
      'SCHEDULED',
      'SCHEDULED',
      'REJECTED',
    ]);
    expect(await balance(t, tenant)).toBeCloseTo(before - 0.5, 6);
    const lookup = await t
      .http()
      .get(`/api/v1/json/messages/${res.body.data[0].message_id}`)
      .set('X-API-Key', tenant.key);
    expect(lookup.body).toMatchObject({
      status: 'SCHEDULED',
      send_at: at,
      // validity (48 h by default) counts from send_at, the later of send_at and acceptance
      valid_until: plusSeconds(at, 172_800),
    });
    expect(lookup.body.history.map((h: { status: string }) => h.status)).toEqual(['SCHEDULED']);
    await new Promise((r) => setTimeout(r, 500));
    expect(await statuses(t, res.body.api_reference)).toEqual(['SCHEDULED', 'SCHEDULED', 'REJECTED']);
  });

  it('adds send_at to the e-mail, chat and XML answers (the XML status stays SUCCESS)', async () => {
    const sendAt = daysAhead(20);
    const email = await t
      .http()
      .post(EMAIL)
      .set('X-API-Key', tenant.key)
      .send({ to: 'a@example.com', subject: 's', email_body: 'b', from: 'x@example.com', send_at: sendAt });
    expect(email.status).toBe(200);
    expect(email.body).toMatchObject({ send_at: sendAt, data: [{ status: 'SCHEDULED' }] });
    const chat = await t
      .http()
      .post(CHAT)
      .set('X-API-Key', tenant.key)
      .send({
        username: tenant.username,
        password: tenant.password,
        senderid: 260970000000,
        message: 'm',
        recipient: ['260971234567'],
        send_at: sendAt,
        validity_period: 3600,
      });
    expect(chat.status).toBe(200);
    expect(chat.body).toMatchObject({ send_at: sendAt, status: 'success', count: 1 });
    const xml = await t
      .http()
      .post(XML)
      .set('X-API-Key', tenant.key)
      .set('Content-Type', 'application/xml')
      .send(
        `<request><from>ACME</from><to>260971234567</to><message>m</message><source>API</source><send_at>${sendAt}</send_at><validity_period>600</validity_period></request>`,
      );
    expect(xml.status).toBe(200);
    const doc = new XMLParser({ parseTagValue: false }).parse(xml.text).response;
    expect(doc).toMatchObject({ status: 'SUCCESS', send_at: sendAt, recipient: '260971234567' });
    const row = await sendRequestFields(t, doc.reference, 'validity_period', 'valid_until');
    expect(row.validity_period).toBe(600);
    expect(new Date(row.valid_until as Date).toISOString()).toBe(plusSeconds(sendAt, 600));
  });

  it('hands a scheduled message over once it is due: SCHEDULED, then ACKNOWLEDGED, SENT, DELIVERED, none before send_at', async () => {
    const sendAt = inSeconds(6);
    const res = await sms({ to: numbers(3, 230100), send_at: sendAt, callback_url: `${hooks.url}/due` });
    expect(res.body.data.every((d: { status: string }) => d.status === 'SCHEDULED')).toBe(true);
    const ref = res.body.api_reference;
    await waitFor(
      async () => (await statuses(t, ref)).every((s) => s === 'DELIVERED'),
      20_000,
      'all DELIVERED',
    );
    const rows = await requestMessages(t, ref, 'sent_at');
    for (const r of rows)
      expect(new Date(r.sent_at).getTime()).toBeGreaterThanOrEqual(Date.parse(res.body.send_at));
    const one = await t
      .http()
      .get(`/api/v1/json/messages/${res.body.data[0].message_id}`)
      .set('X-API-Key', tenant.key);
    expect(one.body.history.map((h: { status: string }) => h.status)).toEqual([
      'SCHEDULED',
      'ACKNOWLEDGED',
      'SENT',
      'DELIVERED',
    ]);
    expect(one.body.send_at).toBe(res.body.send_at);
    expect(one.body.valid_until).toMatch(ISO_UTC_MS);
  });

  describe('cancel', () => {
    it('cancels every message of a request not yet handed over, refunds them, posts CANCELLED callbacks; a repeat cancels nothing more', async () => {
      const before = await balance(t, tenant);
      const res = await sms({
        to: numbers(4, 230200),
        send_at: inSeconds(3600),
        callback_url: `${hooks.url}/cancel`,
      });
      const ref = res.body.api_reference;
      expect(await balance(t, tenant)).toBeCloseTo(before - 1, 6);
      const cancel = await t.http().post(`/api/v1/json/bulk/${ref}/cancel`).set('X-API-Key', tenant.key);
      expect(cancel.status).toBe(200);
      expect(cancel.body).toEqual({
        api_reference: ref,
        cancelled: 4,
        not_cancelled: 0,
        refunded: 1,
        currency: 'ZMW',
      });
      expect(await statuses(t, ref)).toEqual(['CANCELLED', 'CANCELLED', 'CANCELLED', 'CANCELLED']);
      expect(await balance(t, tenant)).toBeCloseTo(before, 6);
      const again = await t.http().post(`/api/v1/json/bulk/${ref}/cancel`).set('X-API-Key', tenant.key);
      expect(again.body).toEqual({
        api_reference: ref,
        cancelled: 0,
        not_cancelled: 4,
        refunded: 0,
        currency: 'ZMW',
      });
      expect(await balance(t, tenant)).toBeCloseTo(before, 6);
      const uuids = new Set(res.body.data.map((d: { message_id: string }) => d.message_id));
      await waitFor(
        async () =>
          hooks.requests.filter((r) => {
            const j = r.json as { message_id: string; status: string };
            return uuids.has(j.message_id) && j.status === 'CANCELLED';
          }).length === 4,
        10_000,
        'four CANCELLED callbacks',
      );
    });

    it('cancels an immediate send whose messages are still waiting, and leaves those handed over alone', async () => {
      const res = await sms({ to: numbers(2, 230300) });
      const ref = res.body.api_reference;
      await waitFor(
        async () => (await statuses(t, ref)).every((s) => s === 'DELIVERED'),
        10_000,
        'DELIVERED',
      );
      const cancel = await t.http().post(`/api/v1/json/bulk/${ref}/cancel`).set('X-API-Key', tenant.key);
      expect(cancel.body).toMatchObject({ cancelled: 0, not_cancelled: 2, refunded: 0 });
    });

    it('cancels one message by its message_id, the others of the request going ahead', async () => {
      const res = await sms({ to: numbers(2, 230400), send_at: inSeconds(6) });
      const [first, second] = res.body.data.map((d: { message_id: string }) => d.message_id);
      const cancel = await t
        .http()
        .post(`/api/v1/json/messages/${first}/cancel`)
        .set('X-API-Key', tenant.key);
      expect(cancel.status).toBe(200);
      expect(cancel.body).toEqual({
        api_reference: res.body.api_reference,
        cancelled: 1,
        not_cancelled: 0,
        refunded: 0.25,
        currency: 'ZMW',
      });
      await waitFor(
        async () => (await statuses(t, res.body.api_reference)).join() === 'CANCELLED,DELIVERED',
        20_000,
        'the other message delivered',
      );
      const repeat = await t
        .http()
        .post(`/api/v1/json/messages/${first}/cancel`)
        .set('X-API-Key', tenant.key);
      expect(repeat.body).toMatchObject({ cancelled: 0, not_cancelled: 1, refunded: 0 });
      const late = await t.http().post(`/api/v1/json/messages/${second}/cancel`).set('X-API-Key', tenant.key);
      expect(late.body).toMatchObject({ cancelled: 0, not_cancelled: 1, refunded: 0 });
    });

    it("answers 404 for another account's request or message, and for an unknown one", async () => {
      const res = await sms({ to: '260971230500', send_at: inSeconds(3600) });
      const ref = res.body.api_reference;
      const uuid = res.body.data[0].message_id;
      for (const path of [
        `/api/v1/json/bulk/${ref}/cancel`,
        `/api/v1/json/messages/${uuid}/cancel`,
        '/api/v1/json/bulk/1234567890123456789/cancel',
        '/api/v1/json/bulk/not-a-reference/cancel',
        '/api/v1/json/messages/00000000-0000-7000-8000-000000000000/cancel',
      ]) {
        const r = await t.http().post(path).set('X-API-Key', other.key);
        expect(r.status).toBe(404);
        expect(r.body.error.code).toBe('NOT_FOUND');
      }
      expect(await statuses(t, ref)).toEqual(['SCHEDULED']);
    });
  });

  describe('reschedule', () => {
    it('moves the messages still SCHEDULED, echoing the new send_at; validity counts from it', async () => {
      const res = await sms({ to: numbers(3, 230600), send_at: inSeconds(3600), validity_period: 600 });
      const ref = res.body.api_reference;
      await t
        .http()
        .post(`/api/v1/json/messages/${res.body.data[0].message_id}/cancel`)
        .set('X-API-Key', tenant.key);
      const at = daysAhead(30);
      const r = await t
        .http()
        .post(`/api/v1/json/bulk/${ref}/reschedule`)
        .set('X-API-Key', tenant.key)
        .send({ send_at: withOffset(at, -5) });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ api_reference: ref, rescheduled: 2, send_at: at });
      const one = await t
        .http()
        .get(`/api/v1/json/messages/${res.body.data[1].message_id}`)
        .set('X-API-Key', tenant.key);
      expect(one.body).toMatchObject({ send_at: at, valid_until: plusSeconds(at, 600) });
    });

    it('sends now when the new send_at is past or under 5 s ahead', async () => {
      const res = await sms({ to: numbers(2, 230700), send_at: inSeconds(3600) });
      const ref = res.body.api_reference;
      const r = await t
        .http()
        .post(`/api/v1/json/bulk/${ref}/reschedule`)
        .set('X-API-Key', tenant.key)
        .send({ send_at: inSeconds(-60) });
      expect(r.status).toBe(200);
      expect(r.body.rescheduled).toBe(2);
      expect(Math.abs(Date.parse(r.body.send_at) - Date.now())).toBeLessThan(60_000);
      await waitFor(
        async () => (await statuses(t, ref)).every((s) => s === 'DELIVERED'),
        20_000,
        'DELIVERED',
      );
    });

    it('answers 409 NOT_RESCHEDULABLE when no message is still SCHEDULED, 400 for a bad send_at, 404 for another account', async () => {
      const res = await sms({ to: '260971230800', send_at: inSeconds(3600) });
      const ref = res.body.api_reference;
      const bad = await t
        .http()
        .post(`/api/v1/json/bulk/${ref}/reschedule`)
        .set('X-API-Key', tenant.key)
        .send({});
      expect(bad.status).toBe(400);
      expect(bad.body.error.details[0].field).toBe('send_at');
      const far = await t
        .http()
        .post(`/api/v1/json/bulk/${ref}/reschedule`)
        .set('X-API-Key', tenant.key)
        .send({ send_at: inSeconds(40 * 86400) });
      expect(far.status).toBe(400);
      const foreign = await t
        .http()
        .post(`/api/v1/json/bulk/${ref}/reschedule`)
        .set('X-API-Key', other.key)
        .send({ send_at: inSeconds(7200) });
      expect(foreign.status).toBe(404);
      await t.http().post(`/api/v1/json/bulk/${ref}/cancel`).set('X-API-Key', tenant.key);
      const none = await t
        .http()
        .post(`/api/v1/json/bulk/${ref}/reschedule`)
        .set('X-API-Key', tenant.key)
        .send({ send_at: inSeconds(7200) });
      expect(none.status).toBe(409);
      expect(none.body.error.code).toBe('NOT_RESCHEDULABLE');
    });
  });

  it('ends a message past its validity EXPIRED, reason VALIDITY_PERIOD_ELAPSED, refunded exactly once, with its callback', async () => {
    const before = await balance(t, tenant);
    const res = await sms({
      to: numbers(2, 230900),
      send_at: inSeconds(3600),
      callback_url: `${hooks.url}/expired`,
    });
    const ref = res.body.api_reference;
    // The schedule came due long ago and its validity ran out meanwhile (all workers were down, say).
    await overdueAndExpired(t, ref);
    await waitFor(async () => (await statuses(t, ref)).every((s) => s === 'EXPIRED'), 15_000, 'EXPIRED');
    const rows = await messagesOfRequest(t, ref);
    expect(rows.map((r) => r.reason)).toEqual(['VALIDITY_PERIOD_ELAPSED', 'VALIDITY_PERIOD_ELAPSED']);
    expect(await balance(t, tenant)).toBeCloseTo(before, 6);
    expect(await ledgerAmounts(t, ref, 'refund')).toHaveLength(2);
    const uuids = new Set(res.body.data.map((d: { message_id: string }) => d.message_id));
    await waitFor(
      async () =>
        hooks.requests.filter((r) => {
          const j = r.json as { message_id: string; status: string; reason: string };
          return uuids.has(j.message_id) && j.status === 'EXPIRED' && j.reason === 'VALIDITY_PERIOD_ELAPSED';
        }).length === 2,
      10_000,
      'two EXPIRED callbacks',
    );
  });

  it('documents the scheduling fields, the cancel and reschedule routes and NOT_RESCHEDULABLE in OpenAPI', async () => {
    const doc = (await t.http().get('/docs-json')).body;
    for (const path of [
      '/api/v1/json/bulk/{apiReference}/cancel',
      '/api/v1/json/messages/{messageId}/cancel',
      '/api/v1/json/bulk/{apiReference}/reschedule',
    ])
      expect(doc.paths[path]?.post, path).toBeDefined();
    const reschedule = JSON.stringify(
      doc.paths['/api/v1/json/bulk/{apiReference}/reschedule'].post.responses['409'],
    );
    expect(reschedule).toContain('NOT_RESCHEDULABLE');
    for (const dto of ['SmsSendDto', 'EmailSendDto', 'ChatSendDto'])
      expect(Object.keys(doc.components.schemas[dto].properties)).toEqual(
        expect.arrayContaining(['send_at', 'validity_period']),
      );
  });

  it('counts CANCELLED and EXPIRED messages in /metrics', async () => {
    const text = (await t.http().get('/metrics')).text;
    expect(text).toMatch(/bulk_messages_total\{channel="sms",status="CANCELLED"\} [1-9]/);
    expect(text).toMatch(/bulk_messages_total\{channel="sms",status="EXPIRED"\} [1-9]/);
  });

  it('keeps the ledger whole: balance equals the ledger, every refund once and for a refundable state', async () => {
    expect(await storeProblems(t)).toEqual([]);
  });
});
