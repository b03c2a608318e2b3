import formats from 'ajv-formats';
import { OpenAPIBackend, type Document } from 'openapi-backend';
import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * openapi-backend checks a definition against the OpenAPI 3.0 schema only; the document is 3.1
 * (checked by swagger-parser in openapi-file.spec.ts). Its requests and answers are still
 * validated here, by ajv, against the document's schemas.
 */
class OpenApi31Backend extends OpenAPIBackend {
  override validateDefinition(): Document {
    return this.document;
  }
}

/**
 * Real requests and their answers checked against the served OpenAPI document by an
 * independent validator (openapi-backend, on ajv), not by the generator that wrote it: a body the
 * service accepts must pass the document, and so must what the service answers.
 */
describe('the OpenAPI document describes real requests and answers', () => {
  let t: TestApp;
  let a: Tenant;
  let api: OpenAPIBackend;

  beforeAll(async () => {
    t = await startTestApp();
    a = await createTenant(t, { balances: { sms: '100', email: '100', chat: '100' } });
    const doc = (await t.http().get('/docs-json')).body as Document;
    api = new OpenApi31Backend({
      definition: doc,
      strict: true,
      validate: true,
      // OpenAPI's own keywords (example, deprecated) are not JSON Schema's; formats are checked.
      ajvOpts: { strict: false },
      customizeAjv: (ajv) => {
        formats.default(ajv);
        return ajv;
      },
    });
    await api.init();
  });
  afterAll(async () => t?.close());

  /** The validator's findings for a request (none when the document allows it). */
  const requestErrors = (method: string, path: string, body?: unknown, query?: Record<string, string>) =>
    api.validateRequest({
      method,
      path,
      body: body as never,
      query,
      headers: { 'content-type': 'application/json', 'x-api-key': a.key },
    }).errors ?? [];

  /** Sends the request, checks it and its answer against the document, and answers the response. */
  async function exchange(method: 'get' | 'post', path: string, body?: object): Promise<Response> {
    const [route, search] = path.split('?');
    const query = Object.fromEntries(new URLSearchParams(search ?? ''));
    expect(requestErrors(method, route, body, query), `${method} ${path} request`).toEqual([]);
    const req = t.http()[method](path).set('X-API-Key', a.key);
    const res = body ? await req.send(body) : await req;
    const operation = api.matchOperation({ method, path: route, headers: {} });
    expect(operation, `${method} ${route} is in the document`).toBeDefined();
    const answer = api.validateResponse(res.body, operation!, res.status);
    expect(answer.errors ?? [], `${method} ${path} answer ${res.status}`).toEqual([]);
    return res;
  }

  /** A request the document refuses, and the service too: 400, in an answer the document describes. */
  async function refusedByBoth(method: 'get' | 'post', path: string, body?: object, what = path) {
    const [route, search] = path.split('?');
    const query = Object.fromEntries(new URLSearchParams(search ?? ''));
    expect(requestErrors(method, route, body, query).length, what).toBeGreaterThan(0);
    const req = t.http()[method](path).set('X-API-Key', a.key);
    const res = body ? await req.send(body) : await req;
    expect(res.status, what).toBe(400);
    const operation = api.matchOperation({ method, path: route, headers: {} })!;
    expect(api.validateResponse(res.body, operation, 400).errors ?? [], what).toEqual([]);
  }

  it('takes an SMS body with either field set, and the answer of each matches the document', async () => {
    const current = await exchange('post', '/api/v1/json/bulk/sms', {
      from: 'ACME',
      to: ['260971234567'],
      message: 'Hello',
    });
    expect(current.status).toBe(200);
    const older = await exchange('post', '/api/v1/json/bulk/sms', {
      sender_id: 'ACME',
      recipient: '260971234568',
      message_body: 'Hello',
    });
    expect(older.status).toBe(200);
    const mixed = await exchange('post', '/api/v1/json/bulk/sms/preview', {
      sender_id: 'ACME',
      to: '260971234569',
      message_body: 'Hello',
    });
    expect(mixed.status).toBe(200);
  });

  it('says which fields are required: one of each pair, and the service refuses what the document refuses', async () => {
    const bodies: Array<[string, object]> = [
      ['no sender', { to: '260971234567', message: 'Hi' }],
      ['no recipient', { sender_id: 'ACME', message: 'Hi' }],
      ['no text', { from: 'ACME', recipient: '260971234567' }],
    ];
    for (const [what, body] of bodies) await refusedByBoth('post', '/api/v1/json/bulk/sms', body, what);
    // A template stands in for the text.
    expect(
      requestErrors('post', '/api/v1/json/bulk/sms', {
        from: 'ACME',
        to: '260971234567',
        template_id: '0190b7a2-5c1e-7a31-9c2d-3f4e5a6b7c8d',
      }),
    ).toEqual([]);
  });

  it('matches the answers of the other channels, the balance, the search and a lookup', async () => {
    const email = await exchange('post', '/api/v1/json/bulk/email', {
      from: 'noreply@acme.example.com',
      subject: 'Hi',
      to: ['ann@example.com'],
      email_body: '<p>Hello</p>',
    });
    expect(email.status).toBe(200);
    const chat = await exchange('post', '/api/v1/json/bulk/chat', {
      username: a.username,
      password: a.password,
      senderid: '260971000000',
      recipient: ['260971234567'],
      message: 'Hello',
    });
    expect(chat.status).toBe(200);
    expect((await exchange('get', '/api/v1/json/balance')).status).toBe(200);
    const search = await exchange('get', '/api/v1/json/messages?channel=sms&order=desc&limit=2');
    expect(search.status).toBe(200);
    const id = (search.body.data as Array<{ message_id: string }>)[0].message_id;
    expect((await exchange('get', `/api/v1/json/messages/${id}`)).status).toBe(200);
    await refusedByBoth('get', '/api/v1/json/messages?stauts=FAILED');
  });
});
