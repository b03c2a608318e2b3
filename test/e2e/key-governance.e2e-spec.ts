import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeysService, type CreateKeyInput } from '../../src/modules/api-keys/api-keys.service.js';
import { CacheStats } from '../../src/modules/metrics/cache-stats.service.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { apiKeyFields, requestLogs } from '../support/account-probes.js';
import { setAccountStatusDirectly, setKeyHashDirectly } from '../support/direct-writes.js';
import { RedisInstance } from '../support/redis-instance.js';
import { MYSQL_ROOT, startTestApp, testEnv, uniqueName, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

const SMS = '/api/v1/json/bulk/sms';
const XML_SMS = '/api/v1/xml/bulk/sms';
const GOOD = { from: 'ACME', to: '260971234567', message: 'hi' };
/** Refused by validation after the guards: cheap, and an error answer after authentication. */
const BAD = { from: 'ACME' };
const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

type Key = Omit<CreateKeyInput, 'username' | 'name'>;

/** The app served on a real port on every interface ('::' is dual-stack: IPv4 clients appear as ::ffff:a.b.c.d). */
async function listen(t: TestApp): Promise<{ v4: string; v6: string }> {
  await t.app.listen(0, '::');
  const { port } = t.app.getHttpServer().address() as AddressInfo;
  return { v4: `http://127.0.0.1:${port}`, v6: `http://[::1]:${port}` };
}

function post(url: string, key: string, opts: { xff?: string; body?: object; path?: string } = {}) {
  const r = request(url)
    .post(opts.path ?? SMS)
    .set('X-API-Key', key);
  if (opts.xff) r.set('X-Forwarded-For', opts.xff);
  return r.send(opts.body ?? BAD);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until the key is refused with `code`; returns how long that took. */
async function refusedWithin(url: string, key: string, code: string, ms: number): Promise<number> {
  const started = Date.now();
  await waitFor(async () => (await post(url, key)).body?.error?.code === code, ms + 300, `${code}`);
  return Date.now() - started;
}

describe('API key governance', () => {
  const name = uniqueName();
  let a: TestApp; // no trusted proxy
  let b: TestApp; // TRUST_PROXY=127.0.0.1; same databases and Redis prefix as a: a second API process
  let A: { v4: string; v6: string };
  let B: { v4: string; v6: string };
  let tenant: Tenant;
  let seq = 0;

  /** A new key on the shared tenant. */
  const newKey = async (opts: Key = {}) => {
    const { apiKey, secret } = await a.app
      .get(ApiKeysService)
      .create({ username: tenant.username, name: `k${++seq}`, ...opts });
    return { id: apiKey.id, key: secret };
  };
  /** A key's request-log rows, oldest first. */
  const logsOf = (keyId: string) =>
    requestLogs(
      a,
      { keyId },
      'request_id',
      'account_id',
      'method',
      'path',
      'status',
      'ip',
      'user_agent',
      'api_reference',
      'duration_ms',
      'created_at',
    );

  beforeAll(async () => {
    a = await startTestApp({}, name);
    b = await startTestApp({ TRUST_PROXY: '127.0.0.1' }, name);
    A = await listen(a);
    B = await listen(b);
    tenant = await createTenant(a, { balances: { sms: '100000' } });
  });

  afterAll(async () => {
    await b?.app.close();
    await a?.close();
  });

  describe('IP allow lists', () => {
    it('accepts a key from an exact IPv4 address in its list, the client seen as IPv4-mapped ::ffff:127.0.0.1', async () => {
      const k = await newKey({ allowedIps: ['127.0.0.1'] });
      const res = await post(A.v4, k.key, { body: GOOD });
      expect(res.status).toBe(200);
    });

    it('refuses a key from an address outside its list with 403 IP_NOT_ALLOWED', async () => {
      const k = await newKey({ allowedIps: ['192.0.2.10', '10.0.0.0/8'] });
      const res = await post(A.v4, k.key, { body: GOOD });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('IP_NOT_ALLOWED');
      expect(res.body.message).toContain('127.0.0.1');
    });

    it('accepts a client inside an IPv4 CIDR range, and refuses one outside it', async () => {
      const inside = await newKey({ allowedIps: ['127.0.0.0/8'] });
      const outside = await newKey({ allowedIps: ['127.1.0.0/16'] });
      expect((await post(A.v4, inside.key)).status).toBe(400);
      expect((await post(A.v4, outside.key)).body.error.code).toBe('IP_NOT_ALLOWED');
    });

    it('matches IPv6 clients (a request to [::1]) against IPv6 entries only', async () => {
      const v6 = await newKey({ allowedIps: ['::1'] });
      const v6range = await newKey({ allowedIps: ['::/127'] });
      const other = await newKey({ allowedIps: ['2001:db8::/32'] });
      const v4only = await newKey({ allowedIps: ['127.0.0.1'] });
      expect((await post(A.v6, v6.key, { body: GOOD })).status).toBe(200);
      expect((await post(A.v6, v6range.key)).status).toBe(400);
      expect((await post(A.v6, other.key)).body.error.code).toBe('IP_NOT_ALLOWED');
      expect((await post(A.v6, v4only.key)).body.error.code).toBe('IP_NOT_ALLOWED');
      // ... and an IPv6-only key is refused to an IPv4 client.
      expect((await post(A.v4, v6.key)).body.error.code).toBe('IP_NOT_ALLOWED');
    });

    it('treats an entry written as IPv4-mapped IPv6 as the IPv4 address', async () => {
      const k = await newKey({ allowedIps: ['::ffff:127.0.0.1'] });
      const range = await newKey({ allowedIps: ['::ffff:127.0.0.0/104'] });
      expect((await post(A.v4, k.key)).status).toBe(400);
      expect((await post(A.v4, range.key)).status).toBe(400);
    });

    it('believes X-Forwarded-For from a proxy named in TRUST_PROXY', async () => {
      const k = await newKey({ allowedIps: ['203.0.113.0/24'] });
      expect((await post(B.v4, k.key, { xff: '203.0.113.9', body: GOOD })).status).toBe(200);
      expect((await post(B.v4, k.key, { xff: '198.51.100.1' })).body.error.code).toBe('IP_NOT_ALLOWED');
      // Through the proxy, the proxy's own address is not the client's.
      const local = await newKey({ allowedIps: ['127.0.0.1'] });
      expect((await post(B.v4, local.key, { xff: '203.0.113.9' })).body.error.code).toBe('IP_NOT_ALLOWED');
    });

    it('ignores a forged X-Forwarded-For when no proxy is trusted', async () => {
      const k = await newKey({ allowedIps: ['203.0.113.9'] });
      const res = await post(A.v4, k.key, { xff: '203.0.113.9', body: GOOD });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('IP_NOT_ALLOWED');
    });

    it('ignores X-Forwarded-For from a peer that is not the trusted proxy ([::1] when 127.0.0.1 is trusted)', async () => {
      const k = await newKey({ allowedIps: ['203.0.113.9'] });
      const res = await post(B.v6, k.key, { xff: '203.0.113.9', body: GOOD });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('IP_NOT_ALLOWED');
    });
  });

  describe('expiry', () => {
    it('refuses a key with 401 API_KEY_EXPIRED the moment it expires, though its lookup is still cached', async () => {
      const k = await newKey({ expiresAt: new Date(Date.now() + 600) });
      const before = await post(A.v4, k.key);
      expect(before.status).toBe(400);
      const cachedAt = Date.now();
      await sleep(650);
      const after = await post(A.v4, k.key);
      expect(Date.now() - cachedAt).toBeLessThan(1000); // still within the cache TTL
      expect(after.status).toBe(401);
      expect(after.body.error.code).toBe('API_KEY_EXPIRED');
    });
  });

  describe('rate limits', () => {
    it('refuses the 6th request within 10 s of a 5/10 key with 429 RATE_LIMITED and Retry-After; RateLimit-* headers count down', async () => {
      const k = await newKey({ rateLimit: { limit: 5, windowSeconds: 10 } });
      const answers = [];
      for (let i = 0; i < 6; i++) answers.push(await post(A.v4, k.key, { body: i === 0 ? GOOD : BAD }));
      expect(answers.map((r) => r.status)).toEqual([200, 400, 400, 400, 400, 429]);
      expect(answers.map((r) => r.headers['ratelimit-limit'])).toEqual(Array(6).fill('5'));
      expect(answers.map((r) => r.headers['ratelimit-remaining'])).toEqual(['4', '3', '2', '1', '0', '0']);
      for (const r of answers) expect(Number(r.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
      for (const r of answers) expect(Number(r.headers['ratelimit-reset'])).toBeLessThanOrEqual(10);
      const last = answers[5];
      expect(last.body.error.code).toBe('RATE_LIMITED');
      expect(Number(last.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(last.headers['retry-after'])).toBeLessThanOrEqual(10);
      expect(last.headers['x-request-id']).toBeTruthy();
    });

    it('shares one count between two API processes on one Redis', async () => {
      const k = await newKey({ rateLimit: { limit: 5, windowSeconds: 10 } });
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await post(i % 2 === 0 ? A.v4 : B.v4, k.key)).status);
      expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);
    });

    it('counts per key, not per route or account: another key of the same account is not limited', async () => {
      const k = await newKey({ rateLimit: { limit: 1, windowSeconds: 10 } });
      const other = await newKey({ rateLimit: { limit: 1, windowSeconds: 10 } });
      expect((await post(A.v4, k.key)).status).toBe(400);
      expect((await request(A.v4).get('/api/v1/json/messages/nope').set('X-API-Key', k.key)).status).toBe(
        429,
      );
      expect((await post(A.v4, other.key)).status).toBe(400);
    });

    it('checks the address before the rate limit: refused addresses do not use up the count', async () => {
      const k = await newKey({ allowedIps: ['203.0.113.5'], rateLimit: { limit: 2, windowSeconds: 60 } });
      for (let i = 0; i < 3; i++) {
        const res = await post(B.v4, k.key, { xff: '198.51.100.1' });
        expect(res.body.error.code).toBe('IP_NOT_ALLOWED');
        expect(res.headers['ratelimit-limit']).toBeUndefined();
      }
      const ok = [
        await post(B.v4, k.key, { xff: '203.0.113.5' }),
        await post(B.v4, k.key, { xff: '203.0.113.5' }),
      ];
      expect(ok.map((r) => r.status)).toEqual([400, 400]);
      expect(ok.map((r) => r.headers['ratelimit-remaining'])).toEqual(['1', '0']);
    });

    it('does not limit the health routes, nor put RateLimit headers on them', async () => {
      for (let i = 0; i < 3; i++) {
        const res = await request(A.v4).get('/health/live');
        expect(res.status).toBe(200);
        expect(res.headers['ratelimit-limit']).toBeUndefined();
      }
    });
  });

  describe('key cache and revocation', () => {
    it('refuses a key revoked through ApiKeysService in the same process on the very next request', async () => {
      const k = await newKey();
      expect((await post(A.v4, k.key)).status).toBe(400); // now cached
      await a.app.get(ApiKeysService).revoke(k.id);
      const res = await post(A.v4, k.key);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('INVALID_API_KEY');
    });

    it('refuses the old secret of a key rotated in the same process at once, and accepts the new one', async () => {
      const k = await newKey();
      expect((await post(A.v4, k.key)).status).toBe(400);
      const { secret } = await a.app.get(ApiKeysService).rotate(k.id);
      expect((await post(A.v4, k.key)).body.error.code).toBe('INVALID_API_KEY');
      expect((await post(A.v4, secret)).status).toBe(400);
    });

    it('refuses a key revoked through another API process within 1.2 s', async () => {
      const k = await newKey();
      expect((await post(A.v4, k.key)).status).toBe(400);
      await b.app.get(ApiKeysService).revoke(k.id);
      expect(await refusedWithin(A.v4, k.key, 'INVALID_API_KEY', 1200)).toBeLessThanOrEqual(1200);
    });

    it('refuses the old secret of a key rotated directly in the database within 1.2 s', async () => {
      const k = await newKey();
      expect((await post(A.v4, k.key)).status).toBe(400);
      const hash = createHash('sha256').update(`${k.key}-rotated`).digest();
      await setKeyHashDirectly(a, k.id, hash);
      expect(await refusedWithin(A.v4, k.key, 'INVALID_API_KEY', 1200)).toBeLessThanOrEqual(1200);
    });

    it('refuses a key revoked with the CLI (a process without Redis) within 1.2 s of the command', async () => {
      const k = await newKey();
      expect((await post(A.v4, k.key)).status).toBe(400);
      const env = {
        PATH: process.env.PATH ?? '',
        ...testEnv(name),
        LOG_DATABASE_URL: `${MYSQL_ROOT}/${name}_log`,
        NOTIFICATION_DATABASE_URL: `${MYSQL_ROOT}/${name}_notification`,
      };
      const code = await new Promise<number>((resolve) => {
        execFile(
          process.execPath,
          [CLI, 'keys', 'revoke', k.id, '--json'],
          { env, cwd: ROOT, timeout: 25_000 },
          (err) => resolve(err ? Number(err.code ?? -1) : 0),
        );
      });
      expect(code).toBe(0);
      expect(await refusedWithin(A.v4, k.key, 'INVALID_API_KEY', 1200)).toBeLessThanOrEqual(1200);
    });

    it('refuses a suspended account within 1.2 s, and accepts it again within 1.2 s of activation', async () => {
      const other = await createTenant(a);
      expect((await post(A.v4, other.key)).status).toBe(400);
      await setAccountStatusDirectly(a, other.account.id, 'suspended');
      expect(await refusedWithin(A.v4, other.key, 'ACCOUNT_SUSPENDED', 1200)).toBeLessThanOrEqual(1200);
      await setAccountStatusDirectly(a, other.account.id, 'active');
      const started = Date.now();
      await waitFor(async () => (await post(A.v4, other.key)).status === 400, 1500, 'accepted again');
      expect(Date.now() - started).toBeLessThanOrEqual(1200);
    });

    it('answers repeated requests from the cache, not a MySQL lookup each: hit ratio above 0.9 over 50 requests', async () => {
      const k = await newKey();
      const stats = a.app.get(CacheStats);
      const before = stats.snapshot();
      for (let i = 0; i < 50; i++) expect((await post(A.v4, k.key)).status).toBe(400);
      const after = stats.snapshot();
      const hits = after.hits - before.hits;
      const misses = after.misses - before.misses;
      expect(hits + misses).toBe(50);
      expect(hits / 50).toBeGreaterThan(0.9);
      expect(stats.ratio()).toBeGreaterThan(0);
    });

    it('remembers an unknown key briefly, so repeating it costs no query', async () => {
      const stats = a.app.get(CacheStats);
      const before = stats.snapshot();
      for (let i = 0; i < 10; i++)
        expect((await post(A.v4, 'bmk_unknown-key-for-cache-test')).status).toBe(401);
      const after = stats.snapshot();
      expect(after.misses - before.misses).toBeLessThanOrEqual(2);
    });
  });

  describe('last used and request logs', () => {
    it('moves last_used_at after use, written in the background, without touching updated_at', async () => {
      const k = await newKey();
      const { updated_at: updatedBefore } = await apiKeyFields(a, k.id, 'updated_at');
      const t0 = Date.now();
      await post(A.v4, k.key);
      const first = await waitFor(
        async () => {
          const row = await apiKeyFields(a, k.id, 'last_used_at', 'updated_at');
          return row.last_used_at ? row : null;
        },
        6000,
        'last_used_at',
      );
      expect(new Date(first.last_used_at).getTime()).toBeGreaterThanOrEqual(t0 - 5);
      expect(new Date(first.updated_at).getTime()).toBe(new Date(updatedBefore).getTime());
      await sleep(20);
      await post(B.v4, k.key);
      await waitFor(
        async () => {
          const row = await apiKeyFields(a, k.id, 'last_used_at');
          return new Date(row.last_used_at).getTime() > new Date(first.last_used_at).getTime();
        },
        6000,
        'last_used_at to move',
      );
    });

    it('writes one request-log row per authenticated request, with its fields, in the log database', async () => {
      const k = await newKey();
      const ok = await post(A.v4, k.key, { body: GOOD })
        .set('User-Agent', 'governance-test/1.0')
        .set('X-Request-Id', `gov-ok-${k.id}`);
      expect(ok.status).toBe(200);
      await post(A.v4, k.key).set('X-Request-Id', `gov-bad-${k.id}`);
      const xml = await request(A.v4)
        .post(XML_SMS)
        .set('X-API-Key', k.key)
        .set('X-Request-Id', `gov-xml-${k.id}`)
        .set('Content-Type', 'application/xml')
        .send(
          '<request><from>ACME</from><to>260971234567</to><message>hi</message><source>t</source></request>',
        );
      expect(xml.status).toBe(200);
      await post(B.v4, k.key, { xff: '203.0.113.44' }).set('X-Request-Id', `gov-proxy-${k.id}`);
      await post(A.v4, 'bmk_not-a-key'); // no key: no row

      const rows = await waitFor(
        async () => {
          const r = await logsOf(k.id);
          return r.length >= 4 ? r : null;
        },
        5000,
        'four request-log rows',
      );
      await sleep(600); // one more flush interval: nothing else arrives
      expect(await logsOf(k.id)).toHaveLength(4);

      const byId = Object.fromEntries(rows.map((r) => [r.request_id, r]));
      expect(String(byId[`gov-ok-${k.id}`].account_id)).toBe(tenant.account.id);
      expect(byId[`gov-ok-${k.id}`]).toMatchObject({
        method: 'POST',
        path: SMS,
        status: 200,
        ip: '127.0.0.1',
        user_agent: 'governance-test/1.0',
        api_reference: ok.body.api_reference,
      });
      expect(byId[`gov-ok-${k.id}`].duration_ms).toBeGreaterThanOrEqual(0);
      expect(byId[`gov-ok-${k.id}`].created_at).toBeInstanceOf(Date);
      expect(byId[`gov-bad-${k.id}`]).toMatchObject({ status: 400, api_reference: null });
      expect(byId[`gov-xml-${k.id}`]).toMatchObject({ path: XML_SMS, status: 200, api_reference: null });
      expect(byId[`gov-proxy-${k.id}`]).toMatchObject({ status: 400, ip: '203.0.113.44' });
    });

    it('logs refusals after authentication too (429 and 403), and `keys logs ID` shows the rows', async () => {
      const k = await newKey({ rateLimit: { limit: 1, windowSeconds: 60 }, allowedIps: ['127.0.0.1'] });
      await post(A.v4, k.key);
      await post(A.v4, k.key);
      await post(A.v6, k.key);
      await waitFor(
        async () => {
          const r = await logsOf(k.id);
          return (
            r
              .map((x) => x.status)
              .sort()
              .join(',') === '400,403,429'
          );
        },
        5000,
        'rows for 400, 403 and 429',
      );

      const env = {
        PATH: process.env.PATH ?? '',
        ...testEnv(name),
        LOG_DATABASE_URL: `${MYSQL_ROOT}/${name}_log`,
        NOTIFICATION_DATABASE_URL: `${MYSQL_ROOT}/${name}_notification`,
      };
      const out = await new Promise<string>((resolve, reject) => {
        execFile(
          process.execPath,
          [CLI, 'keys', 'logs', k.id, '--json'],
          { env, cwd: ROOT, timeout: 25_000 },
          (err, stdout) => (err ? reject(err) : resolve(stdout)),
        );
      });
      const shown = JSON.parse(out) as { key_id: string; logs: Array<{ status: number; ip: string }> };
      expect(shown.key_id).toBe(k.id);
      expect(shown.logs.map((l) => l.status).sort()).toEqual([400, 403, 429]);
      expect(shown.logs.find((l) => l.status === 403)?.ip).toBe('::1');
    });
  });
});

describe('rate limiter with Redis away', () => {
  let redis: RedisInstance;
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    redis = await RedisInstance.start();
    t = await startTestApp({ REDIS_URL: redis.url });
    tenant = await createTenant(t);
  });
  afterAll(async () => {
    await redis?.start().catch(() => undefined);
    await t?.close();
    await redis?.stop();
  });

  it('fails open: requests are neither refused nor failed while the limiter cannot count, and are limited again after', async () => {
    const { secret: key } = await t.app.get(ApiKeysService).create({
      username: tenant.username,
      name: 'limited',
      rateLimit: { limit: 1, windowSeconds: 60 },
    });
    const first = await t.http().post(SMS).set('X-API-Key', key).send(BAD);
    expect(first.status).toBe(400);
    expect(first.headers['ratelimit-remaining']).toBe('0');
    await redis.stop();
    for (let i = 0; i < 3; i++) {
      const res = await t.http().post(SMS).set('X-API-Key', key).send(BAD);
      expect(res.status).toBe(400);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
    await redis.start();
    // A fresh Redis has lost the count: once reconnected, the first request is counted, the next refused.
    await waitFor(
      async () =>
        (await t.http().post(SMS).set('X-API-Key', key).send(BAD)).headers['ratelimit-limit'] === '1',
      10_000,
      'limiter back',
    );
    expect((await t.http().post(SMS).set('X-API-Key', key).send(BAD)).status).toBe(429);
  });
});
