import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { balanceOf, sendRequestCount } from '../support/probes.js';

const SMS = '/api/v1/json/bulk/sms';
const XML = '/api/v1/xml/bulk/sms';
const GOOD = { from: 'ACME', to: '260971234567', message: 'hi' };
const XML_DOC =
  '<request><from>ACME</from><to>260971234567</to><message>hi</message><source>API</source></request>';

describe('cross-site requests and ambiguous credentials', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestApp({ CORS_ORIGINS: 'https://app.example.com' });
    tenant = await createTenant(t, { balances: { sms: '100', email: '100', chat: '100' } });
  });
  afterAll(async () => t?.close());

  const stored = () => sendRequestCount(t, tenant.account.id);
  const balance = () => balanceOf(t, tenant.account.id);

  it('refuses a send from a page of an origin not in CORS_ORIGINS with 403 FORBIDDEN, storing and charging nothing', async () => {
    const [before, money] = [await stored(), await balance()];
    for (const headers of [
      { Origin: 'https://evil.example' },
      { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
      { 'Sec-Fetch-Site': 'cross-site' },
      { Origin: 'null' },
    ]) {
      const res = await t.http().post(SMS).set('X-API-Key', tenant.key).set(headers).send(GOOD);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
    }
    expect(await stored()).toBe(before);
    expect(await balance()).toBe(money);
  });

  it('refuses cross-site requests on every state-changing route, the XML one answering in XML', async () => {
    const evil = { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' };
    for (const path of ['/api/v1/json/bulk/email', '/api/v1/json/bulk/chat', '/api/v1/json/balance']) {
      const res = await t
        .http()
        .post(path)
        .set('X-API-Key', tenant.key)
        .set(evil)
        .send({ username: tenant.username, password: tenant.password });
      expect(res.status, path).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
    }
    const xml = await t
      .http()
      .post(XML)
      .set('X-API-Key', tenant.key)
      .set(evil)
      .set('Content-Type', 'application/xml')
      .send(XML_DOC);
    expect(xml.status).toBe(403);
    expect(xml.text).toContain('<code>FORBIDDEN</code>');
  });

  it('serves a listed origin, a same-origin page and a client that sends no Origin', async () => {
    expect(
      (
        await t
          .http()
          .post(SMS)
          .set('X-API-Key', tenant.key)
          .set('Origin', 'https://app.example.com')
          .set('Sec-Fetch-Site', 'cross-site')
          .send(GOOD)
      ).status,
    ).toBe(200);
    expect(
      (
        await t
          .http()
          .post(SMS)
          .set('X-API-Key', tenant.key)
          .set('Origin', 'http://api.internal:3000')
          .set('Sec-Fetch-Site', 'same-origin')
          .send(GOOD)
      ).status,
    ).toBe(200);
    expect((await t.http().post(SMS).set('X-API-Key', tenant.key).send(GOOD)).status).toBe(200);
    // Reading is not refused: a GET changes nothing.
    expect((await t.http().get('/health/live').set('Origin', 'https://evil.example')).status).toBe(200);
  });

  it('answers the form content types on the XML route with 415, storing nothing', async () => {
    const before = await stored();
    for (const type of [
      'text/plain',
      'text/plain; charset=utf-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const res = await t
        .http()
        .post(XML)
        .set('X-API-Key', tenant.key)
        .set('Content-Type', type)
        .send(XML_DOC);
      expect(res.status, type).toBe(415);
      expect(res.text).toContain('<code>UNSUPPORTED_MEDIA_TYPE</code>');
    }
    expect(await stored()).toBe(before);
  });

  it('challenges with Bearer only, so a browser never shows its Basic login prompt', async () => {
    const none = await t.http().post(SMS).send(GOOD);
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer realm=/);
    expect(none.headers['www-authenticate']).not.toMatch(/basic/i);
    const bad = await t.http().post(SMS).set('X-API-Key', 'nope').send(GOOD);
    expect(bad.headers['www-authenticate']).not.toMatch(/basic/i);
  });

  it('still accepts Basic with the key as user name and an empty password', async () => {
    const basic = Buffer.from(`${tenant.key}:`).toString('base64');
    expect((await t.http().post(SMS).set('Authorization', `Basic ${basic}`).send(GOOD)).status).toBe(200);
  });

  it('refuses Basic with a non-empty password with 401 INVALID_API_KEY, saying why', async () => {
    const basic = Buffer.from(`${tenant.key}:secret`).toString('base64');
    const res = await t.http().post(SMS).set('Authorization', `Basic ${basic}`).send(GOOD);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_API_KEY');
    expect(res.body.message).toMatch(/empty password/);
  });

  it('refuses two schemes carrying different keys with 401 INVALID_API_KEY, and serves them when they agree', async () => {
    const other = await createTenant(t);
    const res = await t
      .http()
      .post(SMS)
      .set('X-API-Key', tenant.key)
      .set('Authorization', `Bearer ${other.key}`)
      .send(GOOD);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_API_KEY');
    expect(res.body.message).toMatch(/different API keys/);
    expect(
      (
        await t
          .http()
          .post(SMS)
          .set('X-API-Key', tenant.key)
          .set('Authorization', `Bearer ${tenant.key}`)
          .send(GOOD)
      ).status,
    ).toBe(200);
  });
});

describe('XML_ACCEPT_FORM_CONTENT_TYPES=true', () => {
  let t: TestApp;
  let tenant: Tenant;
  beforeAll(async () => {
    t = await startTestApp({ XML_ACCEPT_FORM_CONTENT_TYPES: 'true' });
    tenant = await createTenant(t, { balances: { sms: '100' } });
  });
  afterAll(async () => t?.close());

  it('reads a text/plain body as XML again, for old clients', async () => {
    const res = await t
      .http()
      .post(XML)
      .set('X-API-Key', tenant.key)
      .set('Content-Type', 'text/plain')
      .send(XML_DOC);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<status>SUCCESS</status>');
  });
});
