import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountsService } from '../../src/modules/accounts/accounts.service.js';
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { apiKeyFields, apiKeyHashHex } from '../support/account-probes.js';
import { expireKeyDirectly } from '../support/direct-writes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const SMS = '/api/v1/json/bulk/sms';
const body = { from: 'ACME', to: '260971234567', message: 'hi' };

/** Header lines as sent: superagent writes one line per value of an array (its types say string). */
const twice = (a: string, b: string) => [a, b] as unknown as string;

describe('API key authentication', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t);
  });
  afterAll(async () => t?.close());

  it('accepts the key in X-API-Key', async () => {
    expect((await t.http().post(SMS).set('X-API-Key', tenant.key).send(body)).status).toBe(200);
  });

  it('accepts the key as a Bearer token', async () => {
    expect((await t.http().post(SMS).set('Authorization', `Bearer ${tenant.key}`).send(body)).status).toBe(
      200,
    );
  });

  it('accepts the key as the Basic user name with an empty password', async () => {
    const basic = Buffer.from(`${tenant.key}:`).toString('base64');
    expect((await t.http().post(SMS).set('Authorization', `Basic ${basic}`).send(body)).status).toBe(200);
  });

  it('refuses a request without a key with 401 MISSING_API_KEY and a WWW-Authenticate challenge', async () => {
    const res = await t.http().post(SMS).send(body);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('MISSING_API_KEY');
    expect(res.headers['www-authenticate']).toMatch(/Bearer/);
  });

  it('refuses an unknown key with 401 INVALID_API_KEY', async () => {
    const res = await t.http().post(SMS).set('X-API-Key', 'bmk_notarealkey').send(body);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_API_KEY');
    expect(res.headers['www-authenticate']).toBeTruthy();
  });

  it('refuses two Authorization headers with 400 MALFORMED_REQUEST naming the header, even when the first is valid', async () => {
    const res = await t
      .http()
      .post(SMS)
      .set('Authorization', twice(`Bearer ${tenant.key}`, 'Bearer bmk_someone_else'))
      .send(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('MALFORMED_REQUEST');
    expect(res.body.error.details).toEqual([{ field: 'Authorization', message: 'sent more than once' }]);
  });

  it('refuses two X-API-Key headers with 400 MALFORMED_REQUEST, even the same key twice', async () => {
    const res = await t.http().post(SMS).set('X-API-Key', twice(tenant.key, tenant.key)).send(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('MALFORMED_REQUEST');
    expect(res.body.error.details[0].field).toBe('X-API-Key');
    // One of each is not a repetition.
    const both = await t
      .http()
      .post(SMS)
      .set('X-API-Key', tenant.key)
      .set('Authorization', `Bearer ${tenant.key}`)
      .send(body);
    expect(both.status).toBe(200);
  });

  it('refuses a Basic header whose user name is not a key', async () => {
    const basic = Buffer.from('someone:secret').toString('base64');
    const res = await t.http().post(SMS).set('Authorization', `Basic ${basic}`).send(body);
    expect(res.body.error.code).toBe('INVALID_API_KEY');
  });

  it('refuses a revoked key with 401 INVALID_API_KEY', async () => {
    const other = await createTenant(t);
    await t.app.get(ApiKeysService).revoke(other.apiKey.id);
    const res = await t.http().post(SMS).set('X-API-Key', other.key).send(body);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_API_KEY');
  });

  it('refuses an expired key with 401 API_KEY_EXPIRED', async () => {
    const other = await createTenant(t);
    await expireKeyDirectly(t, other.apiKey.id);
    const res = await t.http().post(SMS).set('X-API-Key', other.key).send(body);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('API_KEY_EXPIRED');
  });

  it('refuses a suspended account with 403 ACCOUNT_SUSPENDED', async () => {
    const other = await createTenant(t);
    await t.app.get(AccountsService).setStatus(other.username, 'suspended');
    const res = await t.http().post(SMS).set('X-API-Key', other.key).send(body);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('ACCOUNT_SUSPENDED');
  });

  it('stores only a SHA-256 hash of the key, never the key', async () => {
    const row = {
      h: await apiKeyHashHex(t, tenant.apiKey.id),
      ...(await apiKeyFields(t, tenant.apiKey.id, 'key_prefix')),
    };
    const { createHash } = await import('node:crypto');
    expect(row.h.toLowerCase()).toBe(createHash('sha256').update(tenant.key).digest('hex'));
    expect(tenant.key.length).toBeGreaterThanOrEqual(40);
    expect(tenant.key.startsWith(row.key_prefix)).toBe(true);
    expect(row.key_prefix.length).toBeLessThan(tenant.key.length / 2);
  });

  it('lets health probes through without a key', async () => {
    expect((await t.http().get('/health')).status).toBe(200);
    expect((await t.http().get('/health/live')).status).toBe(200);
  });
});
