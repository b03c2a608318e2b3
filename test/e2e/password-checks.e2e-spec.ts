import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountsService } from '../../src/modules/accounts/accounts.service.js';
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service.js';
import { MetricsService } from '../../src/modules/metrics/metrics.service.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

const BALANCE = '/api/v1/json/balance';
const SMS = '/api/v1/json/bulk/sms';

/** The value of one sample of the app's own metrics, 0 when absent. */
async function metric(t: TestApp, name: string, labels: string): Promise<number> {
  const { body } = await t.app.get(MetricsService).render();
  const line = body.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

/** Password checks that went as far as the stored hash. */
async function hashes(t: TestApp): Promise<number> {
  return (
    (await metric(t, 'bulk_password_checks_total', 'outcome="verified"')) +
    (await metric(t, 'bulk_password_checks_total', 'outcome="wrong"'))
  );
}

describe('wrong passwords are limited per key and per account', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      AUTH_PASSWORD_FAILURES_PER_KEY: '3/60',
      AUTH_PASSWORD_FAILURES_PER_ACCOUNT: '4/60',
    });
  });
  afterAll(async () => t?.close());

  const balance = (tn: Tenant, password: string, key = tn.key) =>
    t.http().post(BALANCE).set('X-API-Key', key).send({ username: tn.username, password });

  it('answers 429 with Retry-After once a key has used up its wrong passwords, without checking the password', async () => {
    const tn = await createTenant(t);
    for (let i = 0; i < 3; i++) expect((await balance(tn, `wrong-${i}`)).status).toBe(401);
    const throttledBefore = await metric(t, 'bulk_auth_refusals_total', 'reason="password_throttled"');
    const badBefore = await metric(t, 'bulk_auth_refusals_total', 'reason="bad_password"');
    const hashesBefore = await hashes(t);
    const res = await balance(tn, 'wrong-again');
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('RATE_LIMITED');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    // Refused before any hashing: no new wrong-password verdict, only a throttle.
    expect(await metric(t, 'bulk_auth_refusals_total', 'reason="bad_password"')).toBe(badBefore);
    expect(await metric(t, 'bulk_auth_refusals_total', 'reason="password_throttled"')).toBe(
      throttledBefore + 1,
    );
    // A correct password not remembered is not checked either while the key is locked out.
    expect((await balance(tn, tn.password)).status).toBe(429);
    expect(await hashes(t)).toBe(hashesBefore);
  });

  it('keeps serving a correct password the key verified before the flood of wrong ones', async () => {
    const tn = await createTenant(t);
    expect((await balance(tn, tn.password)).status).toBe(200);
    for (let i = 0; i < 4; i++) await balance(tn, `wrong-${i}`);
    expect((await balance(tn, 'wrong-more')).status).toBe(429);
    expect((await balance(tn, tn.password)).status).toBe(200);
  });

  it('counts wrong passwords across all the keys of one account', async () => {
    const tn = await createTenant(t);
    const { secret: second } = await t.app
      .get(ApiKeysService)
      .create({ username: tn.username, name: 'second' });
    for (let i = 0; i < 3; i++) expect((await balance(tn, `wrong-${i}`)).status).toBe(401);
    expect((await balance(tn, 'wrong-3', second)).status).toBe(401);
    const res = await balance(tn, 'wrong-4', second);
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBeTruthy();
  });

  it('does not let one tenant lock out another', async () => {
    const a = await createTenant(t);
    const b = await createTenant(t);
    for (let i = 0; i < 5; i++) await balance(a, `wrong-${i}`);
    expect((await balance(a, 'wrong')).status).toBe(429);
    expect((await balance(b, b.password)).status).toBe(200);
  });

  it('forgets a remembered password once it is changed (as the CLI does, from another process)', async () => {
    const tn = await createTenant(t);
    expect((await balance(tn, tn.password)).status).toBe(200);
    const next = `new-${randomBytes(8).toString('hex')}`;
    await t.app.get(AccountsService).changePassword(tn.username, next);
    // This process's API-key cache (1 s) carries the password tag; once it reloads, the old pair is checked again.
    await waitFor(
      async () => (await balance(tn, tn.password)).status === 401,
      5000,
      'the old password refused',
    );
    expect((await balance(tn, next)).status).toBe(200);
  });
});

describe('failed authentication is throttled per client address, never for a valid key', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestApp({
      AUTH_FAILURES_PER_ADDRESS: '5/60',
      AUTH_FAILURES_PER_ADDRESS_AND_KEY: '3/60',
      AUTH_PASSWORD_FAILURES_PER_KEY: '3/60',
    });
    tenant = await createTenant(t);
  });
  afterAll(async () => t?.close());

  const send = (key: string) =>
    t.http().post(SMS).set('X-API-Key', key).send({ from: 'ACME', to: '260971234567', message: 'hi' });
  const badKey = () => `bad-${randomBytes(8).toString('hex')}`;

  it('answers 429 to bad keys once an address has sent too many (no lookup for a malformed one), and counts it', async () => {
    for (let i = 0; i < 5; i++) expect((await send(badKey())).status).toBe(401);
    const misses = await metric(t, 'bulk_api_key_cache_lookups_total', 'result="miss"');
    const throttled = await metric(t, 'bulk_auth_refusals_total', 'reason="address_throttled"');
    for (let i = 0; i < 10; i++) {
      const res = await send(badKey());
      expect(res.status).toBe(429);
      expect(res.body.error.code).toBe('RATE_LIMITED');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(await metric(t, 'bulk_auth_refusals_total', 'reason="address_throttled"')).toBe(throttled + 10);
    expect(await metric(t, 'bulk_api_key_cache_lookups_total', 'result="miss"')).toBe(misses);
    // A well-formed key it has not seen is looked up, and refused only once it proves unknown.
    const wellFormed = `bmk_${randomBytes(32).toString('base64url')}`;
    expect((await send(wellFormed)).status).toBe(429);
    expect(await metric(t, 'bulk_api_key_cache_lookups_total', 'result="miss"')).toBe(misses + 1);
  });

  it('serves a valid key from an address that is refused for bad keys, first use and cached', async () => {
    // A key this process has never looked up, then the same key again from the cache.
    const other = await createTenant(t);
    expect((await send(other.key)).status).toBe(200);
    expect((await send(other.key)).status).toBe(200);
    expect((await send(tenant.key)).status).toBe(200);
    expect((await send(badKey())).status).toBe(429);
  });

  it("does not count one tenant's wrong passwords against another tenant at the same address", async () => {
    const a = await createTenant(t);
    const b = await createTenant(t);
    const balance = (tn: Tenant, password: string) =>
      t.http().post(BALANCE).set('X-API-Key', tn.key).send({ username: tn.username, password });
    for (let i = 0; i < 20; i++) expect([401, 429]).toContain((await balance(a, `wrong-${i}`)).status);
    expect((await balance(a, 'wrong')).status).toBe(429);
    expect((await balance(b, b.password)).status).toBe(200);
    expect((await send(b.key)).status).toBe(200);
  });
});

describe('a key repeated from one address is refused before the address limit', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ AUTH_FAILURES_PER_ADDRESS: '50/60', AUTH_FAILURES_PER_ADDRESS_AND_KEY: '3/60' });
  });
  afterAll(async () => t?.close());

  it('refuses the repeated key with 429 while other bad keys from the address still get 401', async () => {
    const send = (key: string) => t.http().get('/api/v1/json/messages').set('X-API-Key', key);
    for (let i = 0; i < 3; i++) expect((await send('bmk_stale')).status).toBe(401);
    expect((await send('bmk_stale')).status).toBe(429);
    expect((await send('bmk_other')).status).toBe(401);
  });
});

describe('password checks are fair between tenants', () => {
  let t: TestApp;

  beforeAll(async () => {
    // One hash at a time, and a wrong-password limit the flood never reaches: the worst case
    // for the other tenant, whose check can only get in by its turn.
    t = await startTestApp({
      PASSWORD_CHECK_CONCURRENCY: '1',
      PASSWORD_CHECK_QUEUE_PER_ACCOUNT: '2',
      AUTH_PASSWORD_FAILURES_PER_KEY: '100000/60',
      AUTH_PASSWORD_FAILURES_PER_ACCOUNT: '100000/60',
    });
  });
  afterAll(async () => t?.close());

  const balance = (tn: Tenant, password: string) =>
    t.http().post(BALANCE).set('X-API-Key', tn.key).send({ username: tn.username, password });

  it("answers another tenant's correct password with 200 during one tenant's wrong-password flood, which is refused 429 beyond its queue", async () => {
    const a = await createTenant(t);
    const b = await createTenant(t);
    const statuses: number[] = [];
    const until = Date.now() + 3000;
    // 16 connections of wrong passwords for 3 s.
    const flood = Promise.all(
      Array.from({ length: 16 }, async (_, c) => {
        for (let i = 0; Date.now() < until; i++) statuses.push((await balance(a, `wrong-${c}-${i}`)).status);
      }),
    );
    await new Promise((r) => setTimeout(r, 500));
    const first = await balance(b, b.password);
    expect(first.status).toBe(200);
    // Remembered: the second is answered without a hash (the flood's wrong ones never are).
    const remembered = await metric(t, 'bulk_password_checks_total', 'outcome="remembered"');
    expect((await balance(b, b.password)).status).toBe(200);
    expect(await metric(t, 'bulk_password_checks_total', 'outcome="remembered"')).toBe(remembered + 1);
    await flood;
    expect(new Set(statuses)).toEqual(new Set([401, 429]));
    expect(await metric(t, 'bulk_password_checks_total', 'outcome="queue_full"')).toBeGreaterThan(0);
  });
});
