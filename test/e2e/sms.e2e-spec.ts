import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { queuedMessageIds, startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { allMessagesCount } from '../support/message-probes.js';
import { messagesOfRequest, sendRequestFields, statusesOfRequest } from '../support/probes.js';

const SMS = '/api/v1/json/bulk/sms';

describe('POST /api/v1/json/bulk/sms', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t, { balances: { sms: '100000' } });
  });
  afterAll(async () => t?.close());

  const send = (body: unknown, key = tenant.key) =>
    t
      .http()
      .post(SMS)
      .set('X-API-Key', key)
      .send(body as object);
  const rowsOf = async (ref: string) =>
    (await messagesOfRequest(t, ref)).map(({ recipient, status, reason }) => ({ recipient, status, reason }));

  it('accepts one recipient as a string and answers the documented shape', async () => {
    const res = await send({ from: 'ACME', to: '260971234567', message: 'Hello' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      api_reference: expect.stringMatching(/^\d{19}$/),
      data: [
        {
          message_id: expect.stringMatching(
            /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
          ),
          mobile_number: '260971234567',
          status: 'ACKNOWLEDGED',
        },
      ],
      message: 'successful',
      success: true,
    });
    expect(res.headers['x-request-id']).toBeTruthy();
    const req = await sendRequestFields(
      t,
      res.body.api_reference,
      'sender',
      'body',
      'recipient_count',
      'accepted_count',
    );
    expect(req).toMatchObject({ sender: 'ACME', body: 'Hello', recipient_count: 1, accepted_count: 1 });
    expect(await rowsOf(res.body.api_reference)).toEqual([
      { recipient: '260971234567', status: 'ACKNOWLEDGED', reason: null },
    ]);
  });

  it('accepts the older field names sender_id / recipient / message_body', async () => {
    const res = await send({
      sender_id: 'ACME',
      recipient: ['260971234567', '260971234568'],
      message_body: 'Legacy',
    });
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: { mobile_number: string }) => d.mobile_number)).toEqual([
      '260971234567',
      '260971234568',
    ]);
    const req = await sendRequestFields(t, res.body.api_reference, 'sender', 'body');
    expect(req).toEqual({ sender: 'ACME', body: 'Legacy' });
  });

  it('normalises numbers, sends a repeated number once and rejects invalid ones without sinking the batch', async () => {
    const res = await send({
      from: 'ACME',
      to: ['+260 97-123.4567', '00260971234567', '(260)971234569', '0971234567', 'abc'],
      message: 'x',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { message_id: expect.any(String), mobile_number: '260971234567', status: 'ACKNOWLEDGED' },
      { message_id: expect.any(String), mobile_number: '260971234569', status: 'ACKNOWLEDGED' },
      {
        message_id: expect.any(String),
        mobile_number: '0971234567',
        status: 'REJECTED',
        reason: 'INVALID_NUMBER',
      },
      { message_id: expect.any(String), mobile_number: 'abc', status: 'REJECTED', reason: 'INVALID_NUMBER' },
    ]);
    const rows = await rowsOf(res.body.api_reference);
    expect(rows.map((r) => r.status)).toEqual(['ACKNOWLEDGED', 'ACKNOWLEDGED', 'REJECTED', 'REJECTED']);
    const queued = await queuedMessageIds(t.queue('sms'));
    for (const row of await messagesOfRequest(t, res.body.api_reference)) {
      expect(queued.includes(row.id)).toBe(row.status === 'ACKNOWLEDGED');
    }
  });

  it('stores callback_url, source and user_reference_id', async () => {
    const res = await send({
      from: 'ACME',
      to: '260971234567',
      message: 'x',
      callback_url: 'https://example.com/hook',
      source: 'billing',
      user_reference_id: 'ref-store-1',
    });
    expect(res.status).toBe(200);
    const req = await sendRequestFields(
      t,
      res.body.api_reference,
      'callback_url',
      'source',
      'user_reference_id',
    );
    expect(req).toEqual({
      callback_url: 'https://example.com/hook',
      source: 'billing',
      user_reference_id: 'ref-store-1',
    });
  });

  it('stores 5,000 recipients in MySQL and queues all of them in Redis in chunks', async () => {
    const to = Array.from({ length: 5000 }, (_, i) => `26097${String(1000000 + i).padStart(7, '0')}`);
    const res = await send({ from: 'ACME', to, message: 'bulk' });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(5000);
    const statuses = await statusesOfRequest(t, res.body.api_reference);
    expect(statuses.filter((s) => s === 'ACKNOWLEDGED')).toHaveLength(5000);
    const jobs = (await t.queue('sms').getJobs(['waiting'])).filter(
      (j) => j.data.sendRequestId === res.body.api_reference,
    );
    expect(jobs.length).toBeGreaterThan(1);
    expect(jobs.length).toBeLessThan(5000);
    expect(new Set(jobs.flatMap((j) => j.data.messageIds)).size).toBe(5000);
    // Marked enqueued shortly after its jobs reached Redis (MARK_ENQUEUED_MS), not before the answer.
    const marked = await waitFor(
      async () => (await sendRequestFields(t, res.body.api_reference, 'enqueued_at')).enqueued_at !== null,
      2000,
    );
    expect(marked).toBe(true);
  });

  describe('validation', () => {
    it.each([
      ['from missing', { to: '260971234567', message: 'x' }, 'from'],
      ['to missing', { from: 'ACME', message: 'x' }, 'to'],
      ['message missing', { from: 'ACME', to: '260971234567' }, 'message'],
      ['empty to list', { from: 'ACME', to: [], message: 'x' }, 'to'],
      ['to of the wrong type', { from: 'ACME', to: 260971234567, message: 'x' }, 'to'],
      ['a number inside the to list', { from: 'ACME', to: ['260971234567', 5], message: 'x' }, 'to'],
      ['message of the wrong type', { from: 'ACME', to: '260971234567', message: 42 }, 'message'],
      [
        'from and sender_id differ',
        { from: 'ACME', sender_id: 'OTHER', to: '260971234567', message: 'x' },
        'from',
      ],
      [
        'sender id longer than 11 characters',
        { from: 'ACMECORPORATION', to: '260971234567', message: 'x' },
        'from',
      ],
      ['sender id of 16 digits', { from: '1234567890123456', to: '260971234567', message: 'x' }, 'from'],
      [
        'source too long',
        { from: 'ACME', to: '260971234567', message: 'x', source: 'x'.repeat(256) },
        'source',
      ],
    ])('refuses %s with VALIDATION_ERROR naming the field', async (_name, body, field) => {
      const res = await send(body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        success: false,
        error: { code: 'VALIDATION_ERROR' },
        request_id: expect.any(String),
      });
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it('refuses a request where no recipient is valid, naming each', async () => {
      const res = await send({ from: 'ACME', to: ['123', 'abc'], message: 'x' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details).toEqual([
        { field: 'to[0]', message: 'INVALID_NUMBER' },
        { field: 'to[1]', message: 'INVALID_NUMBER' },
      ]);
    });

    it('refuses a message longer than 10 segments with MESSAGE_TOO_LONG', async () => {
      const res = await send({ from: 'ACME', to: '260971234567', message: 'a'.repeat(153 * 10 + 1) });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('MESSAGE_TOO_LONG');
    });

    it('refuses more recipients than MAX_RECIPIENTS with TOO_MANY_RECIPIENTS', async () => {
      const to = Array.from({ length: 10_001 }, (_, i) => `26097${String(1000000 + i).padStart(7, '0')}`);
      const res = await send({ from: 'ACME', to, message: 'x' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('TOO_MANY_RECIPIENTS');
    });

    it.each([
      ['ftp://example.com/x'],
      ['not a url'],
      ['http://127.0.0.1/hook'],
      ['http://10.1.2.3/hook'],
      ['http://[::1]/hook'],
      ['http://169.254.169.254/latest'],
      ['http://localhost:8080/hook'],
    ])('refuses callback_url %s with INVALID_CALLBACK_URL', async (url) => {
      const res = await send({ from: 'ACME', to: '260971234567', message: 'x', callback_url: url });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_CALLBACK_URL');
    });

    it('stores nothing for a refused request', async () => {
      const before = await allMessagesCount(t);
      await send({ from: 'ACME', to: ['123'], message: 'x' });
      await send({ from: 'ACMECORPORATION', to: '260971234567', message: 'x' });
      expect(await allMessagesCount(t)).toBe(before);
    });
  });

  describe('framework errors in the one error shape', () => {
    it('answers malformed JSON with 400 MALFORMED_BODY', async () => {
      const res = await t
        .http()
        .post(SMS)
        .set('X-API-Key', tenant.key)
        .set('Content-Type', 'application/json')
        .send('{"from": "ACME",');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        success: false,
        message: expect.any(String),
        error: { code: 'MALFORMED_BODY', details: [] },
        request_id: expect.any(String),
      });
    });

    it('answers a JSON array body with 400 VALIDATION_ERROR', async () => {
      const res = await t.http().post(SMS).set('X-API-Key', tenant.key).send([1, 2]);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    });

    it('answers a body over the limit with 413 PAYLOAD_TOO_LARGE', async () => {
      const res = await t
        .http()
        .post(SMS)
        .set('X-API-Key', tenant.key)
        .set('Content-Type', 'application/json')
        .send(`{"message":"${'a'.repeat(5 * 1024 * 1024)}"}`);
      expect(res.status).toBe(413);
      expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    });

    it('answers an unknown route with 404 NOT_FOUND', async () => {
      const res = await t.http().get('/api/v1/json/nothing-here');
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    });

    it('echoes a caller-supplied X-Request-Id', async () => {
      const res = await t.http().get('/health').set('X-Request-Id', 'abc-123');
      expect(res.headers['x-request-id']).toBe('abc-123');
    });
  });
});
