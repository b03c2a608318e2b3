import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { queuedMessageIds, startTestApp, type TestApp } from '../support/test-app.js';
import { ledgerAmounts, sendRequestFields } from '../support/probes.js';
import { requestMessages } from '../support/message-probes.js';

const SMS = '/api/v1/json/bulk/sms';
const EMAIL = '/api/v1/json/bulk/email';
const CHAT = '/api/v1/json/bulk/chat';
const A = '260971000001';
const B = '260971000002';
const C = '260971000003';

describe('personalised sends: {{name}} variables per recipient', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t, {
      balances: { sms: '1000', email: '1000', chat: '1000' },
      prices: { sms: '0.25', email: '0.05', chat: '0.1' },
    });
  });
  afterAll(async () => t?.close());

  const post = (path: string, body: object) => t.http().post(path).set('X-API-Key', tenant.key).send(body);
  const messages = (ref: string) =>
    requestMessages(t, ref, 'recipient', 'status', 'reason', 'units', 'cost', 'body', 'subject');
  const charged = async (ref: string) => (await ledgerAmounts(t, ref, 'charge'))[0];

  it("fills each recipient's placeholders, stores the rendered text per message and queues them", async () => {
    const res = await post(SMS, {
      from: 'ACME',
      to: [A, B],
      message: 'Hi {{first_name}}, you owe {{amount}}.',
      variables: { [A]: { first_name: 'Jane', amount: '10' }, [B]: { first_name: 'John', amount: '20' } },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: { status: string }) => d.status)).toEqual(['ACKNOWLEDGED', 'ACKNOWLEDGED']);
    expect(res.body.replaced).toBeUndefined();
    const rows = await messages(res.body.api_reference);
    expect(rows.map((r) => r.body)).toEqual(['Hi Jane, you owe 10.', 'Hi John, you owe 20.']);
    expect(await queuedMessageIds(t.queue('sms'))).toHaveLength(2);
  });

  it('prices each recipient on its own text and charges the sum', async () => {
    const long = 'x'.repeat(200); // two GSM-7 segments once filled in
    const res = await post(SMS, {
      from: 'ACME',
      to: [A, B],
      message: 'Note: {{text}}',
      variables: { [A]: { text: 'short' }, [B]: { text: long } },
    });
    expect(res.status).toBe(200);
    const rows = await messages(res.body.api_reference);
    expect(rows.map((r) => [r.units, r.cost])).toEqual([
      [1, '0.250000'],
      [2, '0.500000'],
    ]);
    expect(await charged(res.body.api_reference)).toBe('-0.750000');
  });

  it('refuses a recipient missing a value with MISSING_VARIABLE, uncharged, and sends the others', async () => {
    const res = await post(SMS, {
      from: 'ACME',
      to: [A, B],
      message: 'Hi {{first_name}}',
      variables: { [A]: { first_name: 'Jane' }, [B]: { last_name: 'Doe' } },
    });
    expect(res.status).toBe(200);
    expect(res.body.data[1]).toMatchObject({
      mobile_number: B,
      status: 'REJECTED',
      reason: 'MISSING_VARIABLE',
    });
    const rows = await messages(res.body.api_reference);
    expect(rows[1]).toMatchObject({
      status: 'REJECTED',
      reason: 'MISSING_VARIABLE',
      units: 0,
      cost: '0.000000',
    });
    expect(await charged(res.body.api_reference)).toBe('-0.250000');
  });

  it('refuses a recipient whose text comes out over 10 segments with MESSAGE_TOO_LONG, and sends the others', async () => {
    // A 1,600-character value passes 1,530 septets (10 segments): that recipient alone is refused.
    const long = await post(SMS, {
      from: 'ACME',
      to: [A, B],
      message: '{{text}}',
      variables: { [A]: { text: 'fine' }, [B]: { text: 'y'.repeat(1600) } },
    });
    expect(long.status).toBe(200);
    expect(long.body.data[0].status).toBe('ACKNOWLEDGED');
    expect(long.body.data[1]).toMatchObject({ status: 'REJECTED', reason: 'MESSAGE_TOO_LONG' });
    expect(await charged(long.body.api_reference)).toBe('-0.250000');
  });

  it('takes a value as long as a template text (4,096 characters): on chat it is sent', async () => {
    const res = await post('/api/v1/json/bulk/chat', {
      username: tenant.username,
      password: tenant.password,
      senderid: '260971000000',
      recipient: [A],
      message: '{{text}}',
      variables: { [A]: { text: 'y'.repeat(4096) } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.rejected ?? []).toEqual([]);
  });

  it('fails the request with VALIDATION_ERROR when no recipient can be filled in, storing nothing', async () => {
    const res = await post(SMS, { from: 'ACME', to: [A], message: 'Hi {{name}}', variables: {} });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'to[0]', message: 'MISSING_VARIABLE' }],
    });
  });

  it("finds a recipient's values under the number as written in `to`, or as normalised", async () => {
    const res = await post(SMS, {
      from: 'ACME',
      to: ['+260 971 000 001', B],
      message: 'Hi {{n}}',
      variables: { '+260 971 000 001': { n: 'written' }, [B]: { n: 'normalised' } },
    });
    expect(res.status).toBe(200);
    expect((await messages(res.body.api_reference)).map((r) => r.body)).toEqual([
      'Hi written',
      'Hi normalised',
    ]);
  });

  it('sends a text with braces as written when the request has no variables (older clients are unaffected)', async () => {
    const res = await post(SMS, { from: 'ACME', to: [A], message: 'Use code {{SAVE10}}' });
    expect(res.status).toBe(200);
    const [row] = await messages(res.body.api_reference);
    expect(row.body).toBeNull();
    const req = await sendRequestFields(t, res.body.api_reference, 'body');
    expect(req.body).toBe('Use code {{SAVE10}}');
  });

  it.each([
    [{ [A]: 'Jane' }, `variables.${A}`],
    [{ [A]: { n: 5 } }, `variables.${A}.n`],
    [{ [A]: { 'bad-name': 'x' } }, `variables.${A}.bad-name`],
    [{ [A]: { n: 'z'.repeat(4097) } }, `variables.${A}.n`],
    [['x'], 'variables'],
  ])('refuses malformed variables %j with VALIDATION_ERROR naming %s', async (variables, field) => {
    const res = await post(SMS, { from: 'ACME', to: [A], message: 'Hi {{n}}', variables });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('answers a repeat with the same variables with the first answer, and different variables with 409', async () => {
    const body = {
      from: 'ACME',
      to: [A],
      message: 'Hi {{n}}',
      variables: { [A]: { n: 'one' } },
      user_reference_id: `p-${Date.now()}`,
    };
    const first = await post(SMS, body);
    const again = await post(SMS, body);
    expect(again.body.api_reference).toBe(first.body.api_reference);
    const other = await post(SMS, { ...body, variables: { [A]: { n: 'two' } } });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('DUPLICATE_REFERENCE');
  });

  it('HTML-escapes values in an e-mail body but not in its subject, per recipient', async () => {
    const res = await post(EMAIL, {
      from: 'ACME <news@acme.example>',
      to: ['jane@example.com', 'tom@example.com'],
      subject: 'For {{name}}',
      email_body: '<p>Hello {{name}}</p>',
      variables: { 'jane@example.com': { name: 'Jane' }, 'tom@example.com': { name: 'Tom & "Jerry" <3' } },
    });
    expect(res.status).toBe(200);
    const rows = await messages(res.body.api_reference);
    expect(rows.map((r) => [r.subject, r.body])).toEqual([
      ['For Jane', '<p>Hello Jane</p>'],
      ['For Tom & "Jerry" <3', '<p>Hello Tom &amp; &quot;Jerry&quot; &lt;3</p>'],
    ]);
  });

  it('refuses a value with a line break used in an e-mail subject (no header injection)', async () => {
    const res = await post(EMAIL, {
      from: 'news@acme.example',
      to: ['jane@example.com'],
      subject: 'For {{name}}',
      email_body: 'Hi',
      variables: { 'jane@example.com': { name: 'Jane\r\nBcc: all@example.com' } },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('fills chat messages per recipient and charges one unit each', async () => {
    const res = await post(CHAT, {
      username: tenant.username,
      password: tenant.password,
      senderid: 260970000000,
      recipient: [A, B, C],
      message: 'Order {{order}} shipped',
      variables: { [A]: { order: '1' }, [B]: { order: '2' } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      count: 2,
      cost: 0.2,
      rejected: [{ recipient: C, reason: 'MISSING_VARIABLE' }],
    });
    expect((await messages(res.body.reference)).map((r) => r.body)).toEqual([
      'Order 1 shipped',
      'Order 2 shipped',
      null,
    ]);
  });
});
