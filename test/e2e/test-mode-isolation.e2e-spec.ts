import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service.js';
import { InboundNumberStore } from '../../src/modules/inbound/inbound-number.store.js';
import { InboundReceiver } from '../../src/modules/inbound/inbound.receiver.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { balanceOf, sendRequestFields } from '../support/probes.js';
import { requestMessages } from '../support/message-probes.js';

/**
 * Test and live data never cross, whatever the route: each kind of key finds the other kind's
 * requests, messages and templates as it finds another account's (404, or nothing listed), and
 * changes none of them. Sends are scheduled an hour ahead and no worker runs, so every message
 * stays cancellable for the whole suite.
 */
const SMS = '/api/v1/json/bulk/sms';
const TEMPLATES = '/api/v1/json/templates';
const NUMBER = '260955000321';

describe('test and live sides of an account never cross', () => {
  let t: TestApp;
  let tenant: Tenant;
  let testKey: string;
  const sendAt = () => new Date(Date.now() + 3_600_000).toISOString();

  const send = async (key: string, extra: object = {}) => {
    const res = await t
      .http()
      .post(SMS)
      .set('X-API-Key', key)
      .send({ from: 'ACME', to: ['260971234567'], message: 'hello', send_at: sendAt(), ...extra });
    expect(res.status).toBe(200);
    return { ref: res.body.api_reference as string, id: res.body.data[0].message_id as string };
  };
  const state = async (ref: string) => {
    const [{ status }] = await requestMessages(t, ref, 'status');
    const request = await sendRequestFields(t, ref, 'send_at', 'cancel_requested_at');
    return {
      status,
      send_at: request.send_at as Date,
      cancel_requested_at: request.cancel_requested_at as Date | null,
    };
  };
  const smsBalance = () => balanceOf(t, tenant.account.id);
  const post = (path: string, key: string, body: object = {}) =>
    t.http().post(path).set('X-API-Key', key).send(body);

  beforeAll(async () => {
    t = await startTestApp({ RUN_WORKERS: 'false' });
    tenant = await createTenant(t, { balances: { sms: '100' }, prices: { sms: '0.5' } });
    testKey = (
      await t.app.get(ApiKeysService).create({ username: tenant.username, name: 'sandbox', mode: 'test' })
    ).secret;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it("refuses cancel, message cancel and reschedule of the other side's requests with 404, and leaves them as they were", async () => {
    const live = await send(tenant.key, { user_reference_id: 'order-42' });
    const test = await send(testKey, { user_reference_id: 'order-42' });
    const before = { live: await state(live.ref), test: await state(test.ref), balance: await smsBalance() };
    const later = new Date(Date.now() + 30 * 86_400_000).toISOString();
    for (const [key, other] of [
      [testKey, live],
      [tenant.key, test],
    ] as const) {
      const cancel = await post(`/api/v1/json/bulk/${other.ref}/cancel`, key);
      expect([cancel.status, cancel.body.error?.code]).toEqual([404, 'NOT_FOUND']);
      const cancelOne = await post(`/api/v1/json/messages/${other.id}/cancel`, key);
      expect([cancelOne.status, cancelOne.body.error?.code]).toEqual([404, 'NOT_FOUND']);
      const move = await post(`/api/v1/json/bulk/${other.ref}/reschedule`, key, { send_at: later });
      expect([move.status, move.body.error?.code]).toEqual([404, 'NOT_FOUND']);
    }
    expect(await state(live.ref)).toEqual(before.live);
    expect(await state(test.ref)).toEqual(before.test);
    expect(await smsBalance()).toBe(before.balance);
  });

  it('lets a test key cancel and reschedule its own test requests and messages, touching no balance', async () => {
    const balance = await smsBalance();
    const one = await send(testKey);
    const cancelOne = await post(`/api/v1/json/messages/${one.id}/cancel`, testKey);
    expect(cancelOne.status).toBe(200);
    expect(cancelOne.body).toMatchObject({ api_reference: one.ref, cancelled: 1, not_cancelled: 0 });
    expect((await state(one.ref)).status).toBe('CANCELLED');

    const two = await send(testKey);
    const later = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const move = await post(`/api/v1/json/bulk/${two.ref}/reschedule`, testKey, { send_at: later });
    expect([move.status, move.body.rescheduled]).toEqual([200, 1]);
    const cancel = await post(`/api/v1/json/bulk/${two.ref}/cancel`, testKey);
    expect([cancel.status, cancel.body.cancelled]).toEqual([200, 1]);
    expect(await smsBalance()).toBe(balance);
  });

  it("keeps templates per side: neither kind of key reads, lists, replaces, deletes or sends with the other side's, and a name may exist on both", async () => {
    const body = (text: string) => ({ name: 'reminder', channel: 'sms', body: text });
    const live = await post(TEMPLATES, tenant.key, body('Live text'));
    const test = await post(TEMPLATES, testKey, body('Test text'));
    expect([live.status, test.status]).toEqual([201, 201]);
    const liveId = live.body.template_id as string;
    const testId = test.body.template_id as string;
    for (const [key, otherId, ownId] of [
      [testKey, liveId, testId],
      [tenant.key, testId, liveId],
    ] as const) {
      expect((await t.http().get(`${TEMPLATES}/${otherId}`).set('X-API-Key', key)).status).toBe(404);
      const list = await t.http().get(TEMPLATES).set('X-API-Key', key);
      expect(list.body.templates.map((x: { template_id: string }) => x.template_id)).toEqual([ownId]);
      const put = await t
        .http()
        .put(`${TEMPLATES}/${otherId}`)
        .set('X-API-Key', key)
        .send(body('Changed by the other side'));
      expect(put.status).toBe(404);
      expect((await t.http().delete(`${TEMPLATES}/${otherId}`).set('X-API-Key', key)).status).toBe(404);
      const withOther = await post(SMS, key, { from: 'ACME', to: ['260971234567'], template_id: otherId });
      expect([withOther.status, withOther.body.error?.details?.[0]?.field]).toEqual([400, 'template_id']);
    }
    expect((await t.http().get(`${TEMPLATES}/${liveId}`).set('X-API-Key', tenant.key)).body.body).toBe(
      'Live text',
    );
    const liveSend = await post(SMS, tenant.key, {
      from: 'ACME',
      to: ['260971234567'],
      template_id: liveId,
      send_at: sendAt(),
    });
    const row = await sendRequestFields(t, liveSend.body.api_reference, 'body');
    expect(row.body).toBe('Live text');
  });

  it('finds nothing of the other side through lookups, summaries, search, export, inbound and suppressions', async () => {
    const live = await send(tenant.key, { user_reference_id: 'lookup-live' });
    const test = await send(testKey, { user_reference_id: 'lookup-test' });
    const get = (path: string, key: string) => t.http().get(path).set('X-API-Key', key);
    for (const [key, other, otherRef] of [
      [testKey, live, 'lookup-live'],
      [tenant.key, test, 'lookup-test'],
    ] as const) {
      expect((await get(`/api/v1/json/messages/${other.id}`, key)).status).toBe(404);
      expect((await get(`/api/v1/json/bulk/${other.ref}`, key)).status).toBe(404);
      expect((await get(`/api/v1/json/messages?api_reference=${other.ref}`, key)).status).toBe(404);
      const search = await get(`/api/v1/json/messages?user_reference_id=${otherRef}`, key);
      expect([search.status, search.body.data]).toEqual([200, []]);
      const exported = await get(
        `/api/v1/json/messages/export?format=ndjson&user_reference_id=${otherRef}`,
        key,
      );
      expect([exported.status, exported.text.trim()]).toEqual([200, '']);
    }

    // A live inbound message and a live suppression are not the test side's, and the other way round.
    await t.app.get(InboundNumberStore).add(tenant.account.id, NUMBER, '');
    await t.app.get(InboundReceiver).receive({ from: '260971239999', to: NUMBER, text: 'hello' }, 'simulate');
    const inbound = async (key: string) =>
      (await get('/api/v1/json/inbound', key)).body.data.map((r: { from: string }) => r.from);
    expect(await inbound(tenant.key)).toContain('260971239999');
    expect(await inbound(testKey)).toEqual([]);
    expect(
      (await post('/api/v1/json/suppressions', tenant.key, { channel: 'sms', recipients: ['260971238888'] }))
        .status,
    ).toBe(200);
    const removed = await t
      .http()
      .delete('/api/v1/json/suppressions/sms/260971238888')
      .set('X-API-Key', testKey);
    expect(removed.status).toBe(404);
    const listed = await get('/api/v1/json/suppressions?channel=sms', tenant.key);
    expect(listed.body.data.map((r: { recipient: string }) => r.recipient)).toContain('260971238888');
  });
});
