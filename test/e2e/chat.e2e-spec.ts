import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import {
  balanceOf,
  messagesOfRequest,
  queuedForRequest,
  sendRequestCount,
  sendRequestFields,
  storedBody,
} from '../support/probes.js';
import { sendRequestRow } from '../support/message-probes.js';
import { queuedMessageIds, startTestApp, type TestApp } from '../support/test-app.js';

const CHAT = '/api/v1/json/bulk/chat';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('POST /api/v1/json/bulk/chat', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t, { balances: { chat: '100000' }, prices: { chat: '0.5' } });
  });
  afterAll(async () => t?.close());

  const body = (tn: Tenant, extra: Record<string, unknown> = {}) => ({
    username: tn.username,
    password: tn.password,
    senderid: 260971000000,
    message: 'Hello',
    recipient: ['260971234567'],
    ...extra,
  });
  const send = (b: unknown, key: string | null = tenant.key) => {
    const r = t.http().post(CHAT);
    if (key) r.set('X-API-Key', key);
    return r.send(b as object);
  };

  it('queues one recipient and answers the documented shape: cost, count, currency, estimated_delivery, reference, status', async () => {
    const before = Date.now();
    const res = await send(body(tenant));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      cost: 0.5,
      count: 1,
      currency: 'ZMW',
      estimated_delivery: expect.stringMatching(ISO),
      message: 'Chat messages queued successfully',
      reference: expect.stringMatching(/^\d{19}$/),
      status: 'success',
    });
    expect(Date.parse(res.body.estimated_delivery)).toBeGreaterThan(before);
    const rows = await messagesOfRequest(t, res.body.reference);
    expect(rows).toEqual([
      {
        id: expect.any(String),
        recipient: '260971234567',
        status: 'ACKNOWLEDGED',
        reason: null,
        units: 1,
        cost: '0.500000',
      },
    ]);
    const req = await sendRequestFields(t, res.body.reference, 'channel', 'sender', 'body', 'accepted_count');
    expect(req).toEqual({ channel: 'chat', sender: '260971000000', body: 'Hello', accepted_count: 1 });
    expect(await queuedMessageIds(t.queue('chat'))).toContain(rows[0].id);
    expect(await queuedForRequest(t.queue('sms'), res.body.reference)).toEqual([]);
  });

  it('charges units × price: three recipients at 0.5 cost 1.5, one row and one queued id each, balance debited', async () => {
    const tn = await createTenant(t, { balances: { chat: '10' }, prices: { chat: '0.5' } });
    const res = await send(
      body(tn, { recipient: ['260971234567', '+260 97 123 4568', '00260971234569'] }),
      tn.key,
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ cost: 1.5, count: 3 });
    const rows = await messagesOfRequest(t, res.body.reference);
    expect(rows.map((r) => r.recipient)).toEqual(['260971234567', '260971234568', '260971234569']);
    expect(rows.every((r) => r.units === 1 && r.cost === '0.500000')).toBe(true);
    expect((await queuedForRequest(t.queue('chat'), res.body.reference)).sort()).toEqual(
      rows.map((r) => r.id).sort(),
    );
    expect(await balanceOf(t, tn.account.id, 'chat')).toBe('8.500000');
  });

  it('sends a repeated number once and counts it once', async () => {
    const res = await send(body(tenant, { recipient: ['260971234567', '+260971234567', '260 971 234 567'] }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ count: 1, cost: 0.5 });
    expect(await messagesOfRequest(t, res.body.reference)).toHaveLength(1);
  });

  it('accepts recipient as a single string', async () => {
    const res = await send(body(tenant, { recipient: '260971234567' }));
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(1);
  });

  it('rejects invalid numbers mixed with valid ones: listed under rejected, not counted, charged or queued', async () => {
    const res = await send(
      body(tenant, { recipient: ['260971234567', '0971234567', 'abc', '260971234568'] }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      cost: 1,
      count: 2,
      rejected: [
        { recipient: '0971234567', reason: 'INVALID_NUMBER' },
        { recipient: 'abc', reason: 'INVALID_NUMBER' },
      ],
    });
    const rows = await messagesOfRequest(t, res.body.reference);
    expect(rows.map((r) => [r.recipient, r.status, r.units])).toEqual([
      ['260971234567', 'ACKNOWLEDGED', 1],
      ['0971234567', 'REJECTED', 0],
      ['abc', 'REJECTED', 0],
      ['260971234568', 'ACKNOWLEDGED', 1],
    ]);
    const queued = await queuedForRequest(t.queue('chat'), res.body.reference);
    expect(queued.sort()).toEqual(
      rows
        .filter((r) => r.status === 'ACKNOWLEDGED')
        .map((r) => r.id)
        .sort(),
    );
  });

  it('fails with VALIDATION_ERROR when no number is valid, storing nothing', async () => {
    const tn = await createTenant(t);
    const res = await send(body(tn, { recipient: ['123', 'abc'] }), tn.key);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      details: [
        { field: 'recipient[0]', message: 'INVALID_NUMBER' },
        { field: 'recipient[1]', message: 'INVALID_NUMBER' },
      ],
    });
    expect(await sendRequestCount(t, tn.account.id, 'chat')).toBe(0);
  });

  it.each([
    ['a JSON number', 260971000000, '260971000000'],
    ['a string of digits', '260971000000', '260971000000'],
    ['a string with a leading plus', '+260971000000', '260971000000'],
    ['a short code number', 12345, '12345'],
  ])('accepts senderid as %s and stores it as text', async (_name, senderid, stored) => {
    const res = await send(body(tenant, { senderid }));
    expect(res.status).toBe(200);
    const req = await sendRequestFields(t, res.body.reference, 'sender');
    expect(req.sender).toBe(stored);
  });

  it.each([
    ['letters', 'ACME'],
    ['a leading zero', '0971000000'],
    ['16 digits', '1234567890123456'],
    ['a fraction', 2609.5],
    ['a negative number', -260971000000],
    ['a boolean', true],
    ['an object', { id: 1 }],
  ])('refuses senderid with %s with VALIDATION_ERROR', async (_name, senderid) => {
    const res = await send(body(tenant, { senderid }));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain('senderid');
  });

  it('keeps emoji, right-to-left text and combining marks unchanged in MySQL (utf8mb4)', async () => {
    const text = 'مرحبا بالعالم 👋🏽 שָׁלוֹם עולם \u200f(RTL)\u200e 🇿🇲 👨‍👩‍👧‍👦 e\u0301 𝄞';
    const res = await send(body(tenant, { message: text }));
    expect(res.status).toBe(200);
    const row = await storedBody(t, res.body.reference);
    expect(row.body).toBe(text);
    expect(row.hex).toBe(Buffer.from(text, 'utf8').toString('hex').toUpperCase());
  });

  it('counts the 4,096-character limit in code points: 4,096 emoji pass, 4,097 are MESSAGE_TOO_LONG', async () => {
    const tn = await createTenant(t);
    const ok = await send(body(tn, { message: '😀'.repeat(4096) }), tn.key);
    expect(ok.status).toBe(200);
    const over = await send(body(tn, { message: '😀'.repeat(4097) }), tn.key);
    expect(over.status).toBe(400);
    expect(over.body.error.code).toBe('MESSAGE_TOO_LONG');
    expect(over.body.error.details).toEqual([
      { field: 'message', message: 'more than 4096 characters (Unicode code points)' },
    ]);
    expect(await sendRequestCount(t, tn.account.id, 'chat')).toBe(1);
  });

  it('refuses a message with an unpaired surrogate (cannot be stored as UTF-8) with VALIDATION_ERROR', async () => {
    const res = await t
      .http()
      .post(CHAT)
      .set('X-API-Key', tenant.key)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(body(tenant)).replace('"Hello"', '"bad \\ud83d here"'));
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      { field: 'message', message: 'contains an unpaired UTF-16 surrogate' },
    ]);
  });

  it.each(['senderid', 'message', 'recipient'])(
    'refuses a request without %s with VALIDATION_ERROR naming it',
    async (field) => {
      const b: Record<string, unknown> = body(tenant);
      delete b[field];
      const res = await send(b);
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        code: 'VALIDATION_ERROR',
        details: [{ field, message: `${field} is required` }],
      });
    },
  );

  it.each([
    ['an empty recipient list', { recipient: [] }, 'recipient'],
    ['an empty message', { message: '' }, 'message'],
  ])('refuses %s with VALIDATION_ERROR', async (_name, extra, field) => {
    const res = await send(body(tenant, extra));
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field, message: `${field} is required` }]);
  });

  it.each([
    ['message as a number', { message: 5 }, 'message'],
    ['message as a list', { message: ['a'] }, 'message'],
    ['recipient as a number', { recipient: 260971234567 }, 'recipient'],
    ['recipient as a list holding a number', { recipient: ['260971234567', 260971234568] }, 'recipient'],
    ['username as a number', { username: 42 }, 'username'],
    ['password as an object', { password: { p: 1 } }, 'password'],
    ['user_reference_id as a number', { user_reference_id: 9 }, 'user_reference_id'],
  ])('refuses %s with VALIDATION_ERROR', async (_name, extra, field) => {
    const res = await send(body(tenant, extra));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it.each(['username', 'password'])('refuses a request without %s with VALIDATION_ERROR', async (field) => {
    const b: Record<string, unknown> = body(tenant);
    delete b[field];
    const res = await send(b);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      details: [{ field, message: `${field} is required` }],
    });
  });

  it('refuses a wrong password with 401 INVALID_CREDENTIALS and stores nothing', async () => {
    const tn = await createTenant(t);
    const res = await send(body(tn, { password: `${tn.password}x` }), tn.key);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_CREDENTIALS');
    expect(await sendRequestCount(t, tn.account.id, 'chat')).toBe(0);
  });

  it("refuses another account's correct credentials with the same answer as a wrong password", async () => {
    const mine = await createTenant(t);
    const other = await createTenant(t);
    const foreign = await send(body(mine, { username: other.username, password: other.password }), mine.key);
    const wrong = await send(body(mine, { password: 'definitely-wrong' }), mine.key);
    const unknown = await send(body(mine, { username: 'no_such_user', password: 'whatever1' }), mine.key);
    for (const res of [foreign, wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.body.error).toEqual({ code: 'INVALID_CREDENTIALS', details: [] });
    }
    expect(foreign.body.message).toBe(wrong.body.message);
    expect(unknown.body.message).toBe(wrong.body.message);
    expect(await sendRequestCount(t, mine.account.id, 'chat')).toBe(0);
    expect(await sendRequestCount(t, other.account.id, 'chat')).toBe(0);
  });

  it('checks credentials before the rest of the body: a wrong password with an invalid body is still 401', async () => {
    const res = await send(body(tenant, { password: 'wrong-password', recipient: [] }));
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_CREDENTIALS');
  });

  it('never stores the body password', async () => {
    const res = await send(body(tenant));
    expect(res.status).toBe(200);
    const row = await sendRequestRow(t, res.body.reference);
    expect(JSON.stringify(row)).not.toContain(tenant.password);
  });

  it('refuses a request without an API key with 401 MISSING_API_KEY', async () => {
    const res = await send(body(tenant), null);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('MISSING_API_KEY');
  });

  // MAX_RECIPIENTS holds for every channel: test/integration/channel-requests.int-spec.ts (its HTTP
  // answer, for SMS, in sms.e2e-spec.ts).

  it('moves estimated_delivery later when the chat queue has a backlog (it is not a constant), but not for a high-priority request', async () => {
    const queue = t.queue('chat');
    const idle = await send(body(tenant));
    const idleLead = Date.parse(idle.body.estimated_delivery) - Date.now();
    // 50 jobs ahead, counted as up to 200 messages each at 50 messages/s: 200 s more.
    const backlog = await queue.addBulk(
      Array.from({ length: 50 }, (_, i) => ({
        name: 'send',
        data: { sendRequestId: `backlog-${i}`, messageIds: [] },
        opts: { delay: 600_000 },
      })),
    );
    try {
      const busy = await send(body(tenant));
      expect(busy.status).toBe(200);
      const busyLead = Date.parse(busy.body.estimated_delivery) - Date.now();
      expect(busyLead - idleLead).toBeGreaterThan(150_000);
      // A high-priority request goes to the priority queue: the chat backlog is not ahead of it.
      const high = await send(body(tenant, { priority: 'high' }));
      expect(high.status, JSON.stringify(high.body)).toBe(200);
      const highLead = Date.parse(high.body.estimated_delivery) - Date.now();
      expect(highLead).toBeLessThan(idleLead + 60_000);
    } finally {
      await Promise.all(backlog.map((j) => j.remove()));
    }
  });
});
