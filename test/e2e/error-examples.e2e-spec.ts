import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../src/platform/errors/error-codes.js';
import { jsonErrorExample } from '../../src/platform/openapi/error-examples.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** The OpenAPI document's error examples are worded as the API answers: each compared with a real answer. */
describe("the OpenAPI error examples, against the API's own answers", () => {
  let t: TestApp;
  let poor: Tenant;
  let fenced: Tenant;
  let limited: Tenant;

  beforeAll(async () => {
    t = await startTestApp();
    poor = await createTenant(t, { balances: { sms: '0.5' }, prices: { sms: '1' } });
    fenced = await createTenant(t, { key: { allowedIps: ['203.0.113.9'] } });
    limited = await createTenant(t, { key: { rateLimit: { limit: 1, windowSeconds: 60 } } });
  });
  afterAll(async () => t?.close());

  const sms = (key: string | undefined, body: object) => {
    const req = t.http().post('/api/v1/json/bulk/sms');
    return (key ? req.set('X-API-Key', key) : req).send(body);
  };
  const withoutRequestId = (body: Record<string, unknown>) => ({ ...body, request_id: undefined });

  it('words each example as the real answer of its code', async () => {
    const hi = { from: 'ACME', to: '260971234567', message: 'Hi' };
    const answers: Array<[ErrorCode, Promise<{ body: Record<string, unknown> }>, (m: string) => string]> = [
      ['MISSING_API_KEY', sms(undefined, hi), (m) => m],
      ['INVALID_API_KEY', sms('bmk_live_not-a-key', hi), (m) => m],
      ['METHOD_NOT_ALLOWED', t.http().get('/api/v1/json/bulk/sms'), (m) => m],
      ['INSUFFICIENT_BALANCE', sms(poor.key, hi), (m) => m],
      ['MESSAGE_TOO_LONG', sms(poor.key, { ...hi, message: 'a'.repeat(1531) }), (m) => m],
      [
        'TOO_MANY_RECIPIENTS',
        sms(poor.key, {
          ...hi,
          to: Array.from({ length: 10001 }, (_, i) => `2609710${String(i).padStart(5, '0')}`),
        }),
        (m) => m,
      ],
      ['IP_NOT_ALLOWED', sms(fenced.key, hi), (m) => m.replace(/from \S+\.$/, 'from 203.0.113.9.')],
      // Refusals of the HTTP stack, before any route.
      [
        'FORBIDDEN',
        t.http().post('/api/v1/json/bulk/sms').set('Sec-Fetch-Site', 'cross-site').send(hi),
        (m) => m,
      ],
      [
        'UNSUPPORTED_MEDIA_TYPE',
        t
          .http()
          .post('/api/v1/json/bulk/sms')
          .set('X-API-Key', poor.key)
          .set('Content-Type', 'text/plain')
          .send('Hi'),
        (m) => m,
      ],
      [
        'RATE_LIMITED',
        t
          .http()
          .get('/api/v1/json/balance')
          .set('X-API-Key', limited.key)
          .then(() => t.http().get('/api/v1/json/balance').set('X-API-Key', limited.key)),
        (m) =>
          m
            .replace(/^Rate limit of 1 requests per 60 s/, 'Rate limit of 100 requests per 1 s')
            .replace(/after \d+ s\.$/, 'after 1 s.'),
      ],
      [
        'NOT_FOUND',
        t.http().get('/api/v1/json/messages/01a200fe-0dfd-7511-ad60-13d93139bcee').set('X-API-Key', poor.key),
        (m) => m,
      ],
    ];
    for (const [code, answer, normalise] of answers) {
      const body = (await answer).body as { message: string };
      const example = jsonErrorExample(code);
      expect(withoutRequestId({ ...body, message: normalise(body.message) }), code).toEqual(
        withoutRequestId(example),
      );
    }
  });
});
