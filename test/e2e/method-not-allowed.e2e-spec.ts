import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { messageCount } from '../support/probes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

type Method = 'get' | 'post' | 'put' | 'delete' | 'patch';

/** A known path asked with a method it does not serve, and the Allow it must answer. */
const WRONG_METHODS: Array<[Method, string, string]> = [
  // Sends, previews and the XML route.
  ['get', '/api/v1/json/bulk/sms', 'POST'],
  ['put', '/api/v1/json/bulk/sms', 'POST'],
  ['delete', '/api/v1/json/bulk/email', 'POST'],
  ['patch', '/api/v1/json/bulk/chat', 'POST'],
  ['get', '/api/v1/json/bulk/sms/preview', 'POST'],
  ['get', '/api/v1/json/bulk/email/preview', 'POST'],
  ['put', '/api/v1/json/bulk/chat/preview', 'POST'],
  // Balance.
  ['delete', '/api/v1/json/balance', 'GET, HEAD, POST'],
  ['put', '/api/v1/json/balance/', 'GET, HEAD, POST'],
  // Messages, request summaries, cancel and reschedule, erasure.
  ['post', '/api/v1/json/messages', 'GET, HEAD'],
  ['delete', '/api/v1/json/messages/01a200fe-0dfd-7511-ad60-13d93139bcee', 'GET, HEAD'],
  ['post', '/api/v1/json/messages/export', 'GET, HEAD'],
  ['get', '/api/v1/json/messages/01a200fe-0dfd-7511-ad60-13d93139bcee/cancel', 'POST'],
  ['delete', '/api/v1/json/bulk/1764184470578998353', 'GET, HEAD'],
  ['get', '/api/v1/json/bulk/1764184470578998353/reschedule', 'POST'],
  ['get', '/api/v1/json/recipients/erase', 'POST'],
  // Templates, inbound, suppressions, sub-accounts.
  ['patch', '/api/v1/json/templates/tpl_1', 'GET, HEAD, PUT, DELETE'],
  ['delete', '/api/v1/json/templates', 'GET, HEAD, POST'],
  ['post', '/api/v1/json/inbound', 'GET, HEAD'],
  ['get', '/api/v1/json/suppressions/sms/260971234567', 'DELETE'],
  ['delete', '/api/v1/json/subaccounts', 'GET, HEAD, POST'],
  ['get', '/api/v1/json/subaccounts/acme/keys', 'POST'],
  // Unkeyed routes: unsubscribe, health, metrics, the documentation.
  ['get', '/unsubscribe/some-token', 'POST'],
  ['post', '/health/live', 'GET, HEAD'],
  ['delete', '/health/detailed', 'GET, HEAD'],
  ['post', '/metrics', 'GET, HEAD'],
  ['post', '/docs-json', 'GET, HEAD'],
];

describe('a method a known path does not serve', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t);
  });
  afterAll(async () => t?.close());

  const ask = (method: Method, path: string) => t.http()[method](path).set('X-API-Key', tenant.key);

  it('answers 405 with Allow naming the methods the path serves, on every route group, with or without a key', async () => {
    for (const [method, path, allow] of WRONG_METHODS) {
      const what = `${method.toUpperCase()} ${path}`;
      for (const res of [await ask(method, path), await t.http()[method](path)]) {
        expect(res.status, what).toBe(405);
        expect(res.headers.allow, what).toBe(allow);
        expect(res.headers['x-request-id'], what).toBeTruthy();
        expect(res.body, what).toMatchObject({
          success: false,
          message: `${method.toUpperCase()} is not served on this path; it answers ${allow}.`,
          error: { code: 'METHOD_NOT_ALLOWED', details: [] },
        });
      }
    }
  });

  it('answers the XML route in XML: GET on it is 405 with Allow: POST', async () => {
    const res = await ask('get', '/api/v1/xml/bulk/sms');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.headers['content-type']).toMatch(/application\/xml/);
    expect(res.text).toContain('<code>METHOD_NOT_ALLOWED</code>');
  });

  it('answers OPTIONS on a known path 204 with the same Allow, and on an unknown path 404', async () => {
    for (const [path, allow] of [
      ['/api/v1/json/bulk/sms', 'POST'],
      ['/api/v1/xml/bulk/sms', 'POST'],
      ['/api/v1/json/balance', 'GET, HEAD, POST'],
      ['/api/v1/json/messages/01a200fe-0dfd-7511-ad60-13d93139bcee', 'GET, HEAD'],
      ['/health/live', 'GET, HEAD'],
    ]) {
      const res = await t.http().options(path);
      expect(res.status, path).toBe(204);
      expect(res.headers.allow, path).toBe(allow);
      expect(res.headers['x-request-id'], path).toBeTruthy();
    }
    const unknown = await t.http().options('/api/v1/json/nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
  });

  it('reads no body and sends nothing on a wrong method: PUT on a send with a valid body', async () => {
    const res = await ask('put', '/api/v1/json/bulk/sms').send({
      from: 'ACME',
      to: '260971234567',
      message: 'Hi',
    });
    expect(res.status).toBe(405);
    expect(await messageCount(t, tenant.account.id)).toBe(0);
  });

  it('still serves the right methods (HEAD with GET) and answers an unknown path 404', async () => {
    expect((await ask('get', '/api/v1/json/balance')).status).toBe(200);
    expect((await t.http().head('/health/live')).status).toBe(200);
    expect((await ask('get', '/api/v1/json/bulk/1764184470578998353')).status).toBe(404);
    for (const path of ['/api/v1/json/nope', '/api/v1/json/bulk/sms/nope', '/nope']) {
      const res = await ask('get', path);
      expect(res.status, path).toBe(404);
      expect(res.body.error.code, path).toBe('NOT_FOUND');
    }
  });

  it('lists 405 with Allow on every operation of the OpenAPI document', async () => {
    type Response = { headers?: Record<string, unknown>; content?: Record<string, unknown> };
    const doc = (await t.http().get('/docs-json')).body as {
      paths: Record<string, Record<string, { responses: Record<string, Response> }>>;
    };
    let operations = 0;
    for (const [path, ops] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(ops)) {
        const notAllowed = op.responses['405'];
        expect(notAllowed, `${method} ${path}`).toBeDefined();
        expect(notAllowed.headers, `${method} ${path}`).toHaveProperty('Allow');
        operations++;
      }
    expect(operations).toBeGreaterThan(30);
    expect(Object.keys(doc.paths['/api/v1/xml/bulk/sms'].post.responses['405'].content!)).toEqual([
      'application/xml',
    ]);
  });
});
