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
import { queuedMessageIds, startTestApp, type TestApp } from '../support/test-app.js';

const EMAIL = '/api/v1/json/bulk/email';
const MIB = 1024 * 1024;

describe('POST /api/v1/json/bulk/email', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t, { balances: { email: '100000' }, prices: { email: '0.05' } });
  });
  afterAll(async () => t?.close());

  const base = { from: 'noreply@acme.example.com', subject: 'Hello', email_body: '<p>Hi</p>' };
  const send = (body: unknown, key: string | null = tenant.key) => {
    const r = t.http().post(EMAIL);
    if (key) r.set('X-API-Key', key);
    return r.send(body as object);
  };

  it('accepts one address as a string, answers the documented shape with a numeric message_id, stores and queues it', async () => {
    const res = await send({ ...base, to: 'jane@example.com' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      api_reference: expect.stringMatching(/^\d{19}$/),
      data: [
        {
          email_address: 'jane@example.com',
          message_id: expect.stringMatching(/^\d+$/),
          status: 'ACKNOWLEDGED',
        },
      ],
      message: 'successful',
      success: true,
    });
    const ref = res.body.api_reference as string;
    const rows = await messagesOfRequest(t, ref);
    expect(rows).toEqual([
      {
        id: res.body.data[0].message_id,
        recipient: 'jane@example.com',
        status: 'ACKNOWLEDGED',
        reason: null,
        units: 1,
        cost: '0.050000',
      },
    ]);
    const req = await sendRequestFields(
      t,
      ref,
      'channel',
      'sender',
      'subject',
      'body',
      'recipient_count',
      'accepted_count',
    );
    expect(req).toEqual({
      channel: 'email',
      sender: 'noreply@acme.example.com',
      subject: 'Hello',
      body: '<p>Hi</p>',
      recipient_count: 1,
      accepted_count: 1,
    });
    expect(await queuedMessageIds(t.queue('email'))).toContain(res.body.data[0].message_id);
    expect(await queuedForRequest(t.queue('sms'), ref)).toEqual([]);
  });

  it('accepts a list of addresses: one data entry, one row and one queued job id per recipient, 1 unit each', async () => {
    const tn = await createTenant(t, { balances: { email: '10' }, prices: { email: '0.05' } });
    const to = ['a@example.com', 'b@example.org', 'c@example.net'];
    const res = await send({ ...base, to }, tn.key);
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: { email_address: string }) => d.email_address)).toEqual(to);
    const rows = await messagesOfRequest(t, res.body.api_reference);
    expect(rows).toHaveLength(3);
    expect(rows.every((r) => r.units === 1 && r.status === 'ACKNOWLEDGED')).toBe(true);
    expect(res.body.data.map((d: { message_id: string }) => d.message_id)).toEqual(rows.map((r) => r.id));
    expect((await queuedForRequest(t.queue('email'), res.body.api_reference)).sort()).toEqual(
      rows.map((r) => r.id).sort(),
    );
    expect(await balanceOf(t, tn.account.id, 'email')).toBe('9.850000');
  });

  it('lower-cases the domain, keeps the local part, and sends a repeated address once', async () => {
    const res = await send({
      ...base,
      to: ['John.Smith@EXAMPLE.com', 'John.Smith@example.COM', ' John.Smith@example.com '],
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { email_address: 'John.Smith@example.com', message_id: expect.any(String), status: 'ACKNOWLEDGED' },
    ]);
    expect(await messagesOfRequest(t, res.body.api_reference)).toHaveLength(1);
  });

  it('rejects invalid addresses with INVALID_EMAIL without sinking the batch: not charged, not queued', async () => {
    const tn = await createTenant(t, { balances: { email: '10' }, prices: { email: '0.05' } });
    const res = await send(
      { ...base, to: ['ok@example.com', 'not-an-address', 'John <john@example.com>', 'x@localhost'] },
      tn.key,
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { email_address: 'ok@example.com', message_id: expect.stringMatching(/^\d+$/), status: 'ACKNOWLEDGED' },
      {
        email_address: 'not-an-address',
        message_id: expect.stringMatching(/^\d+$/),
        status: 'REJECTED',
        reason: 'INVALID_EMAIL',
      },
      {
        email_address: 'John <john@example.com>',
        message_id: expect.stringMatching(/^\d+$/),
        status: 'REJECTED',
        reason: 'INVALID_EMAIL',
      },
      {
        email_address: 'x@localhost',
        message_id: expect.stringMatching(/^\d+$/),
        status: 'REJECTED',
        reason: 'INVALID_EMAIL',
      },
    ]);
    const rows = await messagesOfRequest(t, res.body.api_reference);
    expect(rows.map((r) => [r.status, r.units])).toEqual([
      ['ACKNOWLEDGED', 1],
      ['REJECTED', 0],
      ['REJECTED', 0],
      ['REJECTED', 0],
    ]);
    expect(await queuedForRequest(t.queue('email'), res.body.api_reference)).toEqual([rows[0].id]);
    expect(await balanceOf(t, tn.account.id, 'email')).toBe('9.950000');
  });

  it('fails with VALIDATION_ERROR when no address is valid, storing nothing', async () => {
    const tn = await createTenant(t);
    const res = await send({ ...base, to: ['nope', 'also@nope'] }, tn.key);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details).toEqual([
      { field: 'to[0]', message: 'INVALID_EMAIL' },
      { field: 'to[1]', message: 'INVALID_EMAIL' },
    ]);
    expect(await sendRequestCount(t, tn.account.id, 'email')).toBe(0);
  });

  it('keeps an HTML body byte for byte (markup, entities, CRLF, tabs, trailing spaces, non-ASCII)', async () => {
    const html =
      '<!DOCTYPE html>\r\n<html><head><style>p{color:#c00}</style></head>\r\n' +
      '<body>\t<p class="x" data-a=\'1\'>Fish &amp; chips &lt;b&gt; &#169; — Zürich ✓ 👋🏽</p>  \n' +
      '<script>alert("hi")</script><a href="https://example.com/?a=1&b=2">link</a>\u00a0\n\n  </body></html>  ';
    const res = await send({ ...base, to: 'html@example.com', email_body: html });
    expect(res.status).toBe(200);
    const row = await storedBody(t, res.body.api_reference);
    expect(row.body).toBe(html);
    expect(row.hex).toBe(Buffer.from(html, 'utf8').toString('hex').toUpperCase());
  });

  it('stores from and reply_to normalised, with source and user_reference_id', async () => {
    const res = await send({
      ...base,
      from: 'News@ACME.Example.com',
      reply_to: 'Support@ACME.example.COM',
      to: 'a@example.com',
      source: 'marketing',
      user_reference_id: 'email-store-1',
    });
    expect(res.status).toBe(200);
    const req = await sendRequestFields(
      t,
      res.body.api_reference,
      'sender',
      'reply_to',
      'source',
      'user_reference_id',
    );
    expect(req).toEqual({
      sender: 'News@acme.example.com',
      reply_to: 'Support@acme.example.com',
      source: 'marketing',
      user_reference_id: 'email-store-1',
    });
  });

  it.each([
    ['to', { ...base }],
    ['to', { ...base, to: [] }],
    ['to', { ...base, to: '  ' }],
    ['subject', { ...base, subject: undefined, to: 'a@example.com' }],
    ['subject', { ...base, subject: '', to: 'a@example.com' }],
    ['email_body', { ...base, email_body: undefined, to: 'a@example.com' }],
    ['email_body', { ...base, email_body: '', to: 'a@example.com' }],
    ['from', { ...base, from: undefined, to: 'a@example.com' }],
  ])('refuses a request without %s with VALIDATION_ERROR naming the field', async (field, body) => {
    const res = await send(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details).toContainEqual({ field, message: `${field} is required` });
  });

  it('names every missing field in one answer', async () => {
    const res = await send({});
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual([
      'to',
      'subject',
      'email_body',
      'from',
    ]);
  });

  it.each([
    ['to as a number', { to: 42 }, 'to'],
    ['to as a list holding a number', { to: ['a@example.com', 7] }, 'to'],
    ['to as an object', { to: { address: 'a@example.com' } }, 'to'],
    ['subject as a number', { to: 'a@example.com', subject: 1 }, 'subject'],
    ['email_body as an object', { to: 'a@example.com', email_body: { html: '<p/>' } }, 'email_body'],
    ['from as a list', { to: 'a@example.com', from: ['a@example.com'] }, 'from'],
    ['reply_to as a number', { to: 'a@example.com', reply_to: 5 }, 'reply_to'],
    ['source as a boolean', { to: 'a@example.com', source: true }, 'source'],
    ['user_reference_id as a number', { to: 'a@example.com', user_reference_id: 12 }, 'user_reference_id'],
  ])('refuses %s with VALIDATION_ERROR', async (_name, fields, field) => {
    const res = await send({ ...base, ...fields });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it.each([
    ['no domain', 'noreply@'],
    ['a plain word', 'ACME'],
    ['two addresses', 'a@acme.com,b@acme.com'],
    ['a line break after the display name', 'ACME\r\n <noreply@acme.com>'],
    ['a header smuggled after the address', 'ACME <noreply@acme.com>\nBcc: x@evil.example'],
    ['a control character in the name', 'AC\u0007ME <noreply@acme.com>'],
    ['an unclosed angle bracket', 'ACME <noreply@acme.com'],
    ['two addresses in brackets', 'ACME <a@acme.com> <b@acme.com>'],
  ])('refuses a from address with %s (from must be an e-mail address)', async (_name, from) => {
    const tn = await createTenant(t);
    const res = await send({ ...base, from, to: 'a@example.com' }, tn.key);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      details: [
        {
          field: 'from',
          message: 'must be an e-mail address, optionally with a display name: ACME News <news@acme.example>',
        },
      ],
    });
    expect(await sendRequestCount(t, tn.account.id, 'email')).toBe(0);
  });

  it.each([
    ['ACME News <news@ACME.example>', 'ACME News <news@acme.example>'],
    ['  "ACME, Inc."   <news@acme.example> ', '"ACME, Inc." <news@acme.example>'],
    ['Café Ünïcode <news@acme.example>', 'Café Ünïcode <news@acme.example>'],
    ['<news@acme.example>', 'news@acme.example'],
  ])('accepts the sender %j with a display name and stores it as %j', async (from, stored) => {
    const res = await send({ ...base, from, to: 'a@example.com' });
    expect(res.status).toBe(200);
    const req = await sendRequestFields(t, res.body.api_reference, 'sender');
    expect(req.sender).toBe(stored);
  });

  it('refuses an invalid reply_to with VALIDATION_ERROR', async () => {
    const res = await send({ ...base, to: 'a@example.com', reply_to: 'support at acme' });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'reply_to', message: 'must be a valid e-mail address' }],
    });
  });

  it('accepts a subject of 998 characters counted as code points (998 emoji) and refuses 999 with VALIDATION_ERROR', async () => {
    const ok = await send({ ...base, to: 'a@example.com', subject: '😀'.repeat(998) });
    expect(ok.status).toBe(200);
    const req = await sendRequestFields(t, ok.body.api_reference, 'subject');
    expect(req.subject).toBe('😀'.repeat(998));
    const tooLong = await send({ ...base, to: 'a@example.com', subject: 'x'.repeat(999) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'subject', message: 'at most 998 characters' }],
    });
  });

  it('refuses a subject with a line break (header injection) with VALIDATION_ERROR', async () => {
    const res = await send({ ...base, to: 'a@example.com', subject: 'Hi\r\nBcc: victim@example.com' });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'subject', message: 'must not contain line breaks' }]);
  });

  it('accepts a body of exactly 1 MiB of UTF-8 (2-byte characters) and refuses one byte more with MESSAGE_TOO_LONG', async () => {
    const tn = await createTenant(t);
    const exact = 'é'.repeat(MIB / 2);
    expect(Buffer.byteLength(exact)).toBe(MIB);
    const ok = await send({ ...base, to: 'a@example.com', email_body: exact }, tn.key);
    expect(ok.status).toBe(200);
    expect((await storedBody(t, ok.body.api_reference)).bytes).toBe(MIB);

    const over = await send({ ...base, to: 'a@example.com', email_body: `${exact}a` }, tn.key);
    expect(over.status).toBe(400);
    expect(over.body.error.code).toBe('MESSAGE_TOO_LONG');
    expect(over.body.error.details).toEqual([
      { field: 'email_body', message: `${MIB + 1} bytes, limit ${MIB}` },
    ]);
    expect(await sendRequestCount(t, tn.account.id, 'email')).toBe(1);
  });

  // MAX_RECIPIENTS holds for every channel: test/integration/channel-requests.int-spec.ts (its HTTP
  // answer, for SMS, in sms.e2e-spec.ts).

  it('refuses a request without an API key with 401 MISSING_API_KEY', async () => {
    const res = await send({ ...base, to: 'a@example.com' }, null);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('MISSING_API_KEY');
  });

  it('refuses an unknown API key with 401 INVALID_API_KEY', async () => {
    const res = await send({ ...base, to: 'a@example.com' }, 'not-a-real-key');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_API_KEY');
  });

  it('accepts the key as a Bearer token', async () => {
    const res = await t
      .http()
      .post(EMAIL)
      .set('Authorization', `Bearer ${tenant.key}`)
      .send({ ...base, to: 'bearer@example.com' });
    expect(res.status).toBe(200);
  });
});
