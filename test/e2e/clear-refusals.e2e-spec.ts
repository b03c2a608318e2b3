import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** Refusals that say what to change: a paging value out of range, a body that is no object, a number without its country code. */
describe('refusals that name what to change', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t);
  });
  afterAll(async () => t?.close());

  const get = (path: string) => t.http().get(path).set('X-API-Key', tenant.key);

  it('refuses page and per_page out of range with 400 naming the field, never clamping them', async () => {
    const ref = '1764184470578998353';
    const cases: Array<[string, string, string]> = [
      [`/api/v1/json/messages?api_reference=${ref}&per_page=0`, 'per_page', 'from 1 to 1000'],
      [`/api/v1/json/messages?api_reference=${ref}&per_page=1001`, 'per_page', 'from 1 to 1000'],
      [`/api/v1/json/messages?api_reference=${ref}&page=0`, 'page', 'from 1 to 999999999'],
      ['/api/v1/json/templates?per_page=0', 'per_page', 'from 1 to 500'],
      ['/api/v1/json/templates?per_page=501', 'per_page', 'from 1 to 500'],
      ['/api/v1/json/templates?page=0', 'page', 'from 1 to 999999999'],
      ['/api/v1/json/templates?per_page=-1', 'per_page', 'from 1 to 500'],
    ];
    for (const [path, field, range] of cases) {
      const res = await get(path);
      expect(res.status, path).toBe(400);
      expect(res.body.error.code, path).toBe('VALIDATION_ERROR');
      expect(res.body.error.details, path).toContainEqual({
        field,
        message: `${field} must be a whole number ${range}`,
      });
    }
    // The lists paged by a cursor and a limit say it in the same words.
    const hook = await t
      .http()
      .post('/api/v1/json/webhooks')
      .set('X-API-Key', tenant.key)
      .send({ url: 'https://hooks.acme.example/e', events: ['*'] });
    const deliveries = `/api/v1/json/webhooks/${hook.body.webhook_id}/deliveries`;
    for (const [path, range] of [
      ['/api/v1/json/inbound?limit=0', 'from 1 to 1000'],
      ['/api/v1/json/suppressions?limit=1001', 'from 1 to 1000'],
      ['/api/v1/json/subaccounts?limit=0', 'from 1 to 1000'],
      [`${deliveries}?limit=101`, 'from 1 to 100'],
      [`${deliveries}?limit=abc`, 'from 1 to 100'],
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(400);
      expect(res.body.error.details, path).toEqual([
        { field: 'limit', message: `limit must be a whole number ${range}` },
      ]);
    }
    const edge = await get('/api/v1/json/templates?per_page=500&page=1');
    expect(edge.status).toBe(200);
    expect(edge.body).toMatchObject({ page: 1, per_page: 500 });
  });

  it('answers a JSON body that is null, a number or a string "must be a JSON object", not "not valid JSON"', async () => {
    for (const body of ['null', '42', '"text"', ' null ']) {
      const res = await t
        .http()
        .post('/api/v1/json/bulk/sms')
        .set('X-API-Key', tenant.key)
        .set('Content-Type', 'application/json')
        .send(body);
      expect(res.status, body).toBe(400);
      expect(res.body, body).toMatchObject({
        message: 'The request body must be a JSON object.',
        error: {
          code: 'VALIDATION_ERROR',
          details: [{ field: 'body', message: 'the body must be a JSON object' }],
        },
      });
    }
    const broken = await t
      .http()
      .post('/api/v1/json/bulk/sms')
      .set('X-API-Key', tenant.key)
      .set('Content-Type', 'application/json')
      .send('{"to":');
    expect(broken.body.error.code).toBe('MALFORMED_BODY');
  });

  it('names the missing country code when a number is written in its national form', async () => {
    const res = await t
      .http()
      .post('/api/v1/json/bulk/sms')
      .set('X-API-Key', tenant.key)
      .send({ from: 'ACME', to: ['0971234567', 'abc'], message: 'Hi' });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      { field: 'to[0]', message: expect.stringMatching(/^INVALID_NUMBER: .*country code/) },
      { field: 'to[1]', message: 'INVALID_NUMBER' },
    ]);
  });

  it('names the missing country code on a verification start and a number lookup too', async () => {
    const verify = await t
      .http()
      .post('/api/v1/json/verify')
      .set('X-API-Key', tenant.key)
      .send({ to: '0971234567' });
    expect(verify.status).toBe(422);
    expect(verify.body).toMatchObject({
      message: 'The code cannot be sent to this recipient: INVALID_NUMBER.',
      error: {
        code: 'RECIPIENT_REJECTED',
        details: [{ field: 'to', message: expect.stringMatching(/^INVALID_NUMBER: .*country code/) }],
      },
    });
    const lookup = await get('/api/v1/json/lookup/0971234567');
    expect(lookup.status).toBe(400);
    expect(lookup.body.error.details).toEqual([
      { field: 'number', message: expect.stringMatching(/^a national number without its country code/) },
    ]);
    expect((await get('/api/v1/json/lookup/12')).body.error.details).toEqual([
      { field: 'number', message: 'a phone number: 8-15 digits with the country code, e.g. 260971234567' },
    ]);
  });
});
