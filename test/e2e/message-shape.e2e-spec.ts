import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declaredFields } from '../../src/platform/http/message-shape.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Every property a request or response gets on its way through the app must exist from its
 * construction (message-shape.ts): one added later costs a new hidden class per request. A
 * layer that adds one must declare it with declareRequestFields / declareResponseFields.
 */
describe('requests and responses keep the shape they were made with', () => {
  let t: TestApp;
  let tenant: Tenant;
  const added = { request: new Set<string>(), response: new Set<string>() };
  const seen: Array<[IncomingMessage, ServerResponse]> = [];

  const newKeys = (obj: object, before: Set<PropertyKey>) =>
    Reflect.ownKeys(obj)
      .filter((k) => !before.has(k))
      .map(String);

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t, { balances: { sms: '100', email: '100' } });
    const server = t.app.getHttpServer() as Server;
    // Before the app's own listener: the keys as Node handed the request over.
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      seen.push([req, res]);
      const reqKeys = new Set(Reflect.ownKeys(req));
      const resKeys = new Set(Reflect.ownKeys(res));
      res.once('close', () => {
        for (const k of newKeys(req, reqKeys)) added.request.add(k);
        for (const k of newKeys(res, resKeys)) added.response.add(k);
      });
    });
  });
  afterAll(async () => t?.close());

  it('through a send, a refused send, an unauthenticated call, a read and an unknown route', async () => {
    const http = () => t.http();
    const answers = [
      await http()
        .post('/api/v1/json/bulk/sms')
        .set('X-API-Key', tenant.key)
        .send({ from: 'ACME', to: '260971234567', message: 'hello' }),
      await http()
        .post('/api/v1/json/bulk/sms')
        .set('X-API-Key', tenant.key)
        .send({ from: 'ACME', to: '260971234567' }),
      await http().post('/api/v1/json/bulk/sms').send({ from: 'ACME', to: '260971234567', message: 'x' }),
      await http().get('/health/live'),
      await http()
        .post('/api/v1/xml/bulk/sms')
        .set('X-API-Key', tenant.key)
        .set('Content-Type', 'application/xml')
        .send(
          '<request><from>ACME</from><to>260971234568</to><message>hi</message><source>API</source></request>',
        ),
      await http().get('/no/such/route'),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 400, 401, 200, 200, 404]);
    expect(seen.length).toBe(answers.length);
    // Made with every declared field (Express has changed their prototypes since, so no instanceof).
    const { request, response } = declaredFields();
    expect(request.length).toBeGreaterThan(10);
    for (const [req, res] of seen) {
      expect(request.filter((k) => !Object.hasOwn(req, k)).map(String)).toEqual([]);
      expect(response.filter((k) => !Object.hasOwn(res, k)).map(String)).toEqual([]);
    }
    expect([...added.request]).toEqual([]);
    expect([...added.response]).toEqual([]);
  });
});
