import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { messageCount } from '../support/probes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('unknown body fields', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t);
  });
  afterAll(async () => t?.close());

  const countMessages = () => messageCount(t, tenant.account.id);

  const sms = { from: 'ACME', to: '260971234567', message: 'Hello' };
  const email = {
    from: 'billing@acme.example',
    to: 'jane@example.com',
    subject: 'Hi',
    email_body: '<p>Hi</p>',
  };
  const chat = () => ({
    username: tenant.username,
    password: tenant.password,
    senderid: '260971000000',
    recipient: ['260971234567'],
    message: 'Hello',
  });

  it('refuses a misspelt field on every JSON body route with 400 VALIDATION_ERROR naming it, sending nothing', async () => {
    const routes: Array<[string, () => Record<string, unknown>]> = [
      ['/api/v1/json/bulk/sms', () => sms],
      ['/api/v1/json/bulk/email', () => email],
      ['/api/v1/json/bulk/chat', chat],
      ['/api/v1/json/bulk/sms/preview', () => sms],
      ['/api/v1/json/bulk/email/preview', () => email],
      ['/api/v1/json/bulk/chat/preview', chat],
      ['/api/v1/json/balance', () => ({ username: tenant.username, password: tenant.password })],
      ['/api/v1/json/templates', () => ({ name: 'n1', channel: 'sms', body: 'Hi' })],
      ['/api/v1/json/suppressions', () => ({ channel: 'sms', recipients: ['260971234567'] })],
    ];
    for (const [path, body] of routes) {
      const res = await t
        .http()
        .post(path)
        .set('X-API-Key', tenant.key)
        .send({ ...body(), sendAt: '2027-01-01T09:00:00Z' });
      expect(res.status, path).toBe(400);
      expect(res.body, path).toMatchObject({
        success: false,
        message: 'The request is not valid: unknown field sendAt.',
        error: { code: 'VALIDATION_ERROR', details: [{ field: 'sendAt', message: 'unknown field' }] },
      });
    }
    expect(await countMessages()).toBe(0);
  });

  it('names every unknown field together with the other problems of the body', async () => {
    const res = await t.http().post('/api/v1/json/bulk/sms').set('X-API-Key', tenant.key).send({
      from: 'ACME',
      to: '260971234567',
      message: 5,
      callbackUrl: 'https://x.example',
      Priority: 'high',
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('The request is not valid: unknown fields callbackUrl, Priority.');
    expect(res.body.error.details).toEqual(
      expect.arrayContaining([
        { field: 'callbackUrl', message: 'unknown field' },
        { field: 'Priority', message: 'unknown field' },
        expect.objectContaining({ field: 'message' }),
      ]),
    );
  });

  it('accepts the older field names sender_id, recipient and message_body, which are known fields', async () => {
    const res = await t
      .http()
      .post('/api/v1/json/bulk/sms')
      .set('X-API-Key', tenant.key)
      .send({ sender_id: 'ACME', recipient: ['260971234567'], message_body: 'Hello', source: 'API' });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(await countMessages()).toBe(1);
  });

  it('refuses an unknown element of the XML SMS document, naming it in the XML error', async () => {
    const res = await t
      .http()
      .post('/api/v1/xml/bulk/sms')
      .set('Content-Type', 'application/xml')
      .set('X-API-Key', tenant.key)
      .send(
        '<request><from>ACME</from><to>260971234567</to><message>Hi</message><source>API</source><sendAt>2027-01-01T09:00:00Z</sendAt></request>',
      );
    expect(res.status).toBe(400);
    expect(res.text).toContain('<code>VALIDATION_ERROR</code>');
    expect(res.text).toContain('unknown field sendAt');
    expect(await countMessages()).toBe(1);
  });

  it('answers GET on a send route 405 with Allow: POST, not 404 "No such request."', async () => {
    for (const channel of ['sms', 'email', 'chat']) {
      const res = await t.http().get(`/api/v1/json/bulk/${channel}`).set('X-API-Key', tenant.key);
      expect(res.status, channel).toBe(405);
      expect(res.headers.allow).toBe('POST');
      expect(res.body.error.code).toBe('METHOD_NOT_ALLOWED');
    }
  });
});
