import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { bodyLimitsFor } from '../../src/config/body-limits.js';
import { hashApiKey } from '../../src/modules/api-keys/api-key.util.js';
import { AccountsService } from '../../src/modules/accounts/accounts.service.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { apiKeyRow } from '../support/account-probes.js';
import { allRequestsCount } from '../support/message-probes.js';
import { expectJsonError, expectXmlError } from '../fuzz/expectations.js';
import { listen, rawRequest } from '../fuzz/raw-http.js';
import { RawConnection } from '../fuzz/raw-socket.js';
import { startTestApp, testEnv, uniqueName, type TestApp } from '../support/test-app.js';

const SMS = '/api/v1/json/bulk/sms';
const XML = '/api/v1/xml/bulk/sms';
const GOOD = { from: 'ACME', to: '260971234567', message: 'hi' };
const xmlDoc = (fields: Record<string, string>) =>
  `<request>${Object.entries(fields)
    .map(([k, v]) => `<${k}>${v}</${k}>`)
    .join('')}</request>`;
const GOOD_XML = { from: 'ACME', to: '260971234567', message: 'hi', source: 'API' };

/** `{"from":…, "extra": [[…]]}`: a valid SMS whose deepest container sits at `depth`. */
// The nesting sits in a field no route knows: within the limit, the parser takes it and the
// validation names the field; past it, the parser refuses the body.
const nestedSms = (depth: number) =>
  `{"from":"ACME","to":"260971234567","message":"x","extra":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;

describe('HTTP hardening: limits, security headers, CORS and secrets', () => {
  /** The defaults. */
  let t: TestApp;
  let port: number;
  let tenant: Tenant;
  /** Every limit turned down, CORS open to two origins, https-only callbacks. */
  let c: TestApp;
  let cPort: number;
  let cTenant: Tenant;

  beforeAll(async () => {
    t = await startTestApp();
    port = await listen(t.app.getHttpServer());
    // Big bodies count against the key's rate limit by their size: a limit no test reaches.
    tenant = await createTenant(t, { key: { rateLimit: { limit: 1_000_000, windowSeconds: 1 } } });
    c = await startTestApp({
      CORS_ORIGINS: 'https://app.example.com, http://localhost:8080',
      MAX_JSON_DEPTH: '4',
      XML_BODY_LIMIT: '2kb',
      HTTP_MAX_HEADER_SIZE: '8192',
      HTTP_HEADERS_TIMEOUT_MS: '1000',
      HTTP_REQUEST_TIMEOUT_MS: '2000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000',
      HTTP_MAX_REQUESTS_PER_SOCKET: '3',
      CALLBACK_HTTPS_ONLY: 'true',
    });
    cPort = await listen(c.app.getHttpServer());
    cTenant = await createTenant(c);
  });
  afterAll(async () => {
    await t?.close();
    await c?.close();
  });

  const postJson = (
    p: number,
    key: string,
    path: string,
    body: string | Buffer,
    headers: Record<string, string | undefined> = {},
  ) =>
    rawRequest(p, {
      method: 'POST',
      path,
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json', ...headers },
      body,
    });

  describe('security headers', () => {
    it('answers with helmet headers and a CSP that lets an API answer load nothing', async () => {
      for (const res of [
        await t.http().get('/health'),
        await t.http().post(SMS).set('X-API-Key', tenant.key).send({}),
        await t.http().get('/nope'),
      ]) {
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.headers['x-frame-options']).toBe('DENY');
        expect(res.headers['referrer-policy']).toBe('no-referrer');
        expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
        expect(res.headers['cross-origin-opener-policy']).toBe('same-origin');
        expect(res.headers['cross-origin-resource-policy']).toBe('same-origin');
        expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/);
        expect(res.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
      }
    });

    it('never sends X-Powered-By, on answers, errors or the docs', async () => {
      for (const res of [
        await t.http().get('/health'),
        await t.http().get('/nope'),
        await t.http().post(SMS).send(GOOD),
        await t.http().get('/docs'),
      ]) {
        expect(res.headers['x-powered-by']).toBeUndefined();
      }
    });

    it('marks API answers Cache-Control: no-store (balances and message states are private)', async () => {
      const res = await t
        .http()
        .post('/api/v1/json/balance')
        .set('X-API-Key', tenant.key)
        .send({ username: tenant.username, password: tenant.password });
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
    });

    it('keeps Swagger UI at /docs working: the page, its scripts and the document answer 200 under a CSP that allows them', async () => {
      expect((await t.http().get('/docs')).status).toBe(200);
      const page = await t.http().get('/docs/');
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toMatch(/text\/html/);
      const csp = String(page.headers['content-security-policy']);
      expect(csp).toMatch(/script-src 'self'/);
      expect(csp).not.toMatch(/upgrade-insecure-requests/);
      // Every script is a file of its own: an inline one would be blocked by script-src 'self'.
      const scripts = [...page.text.matchAll(/<script([^>]*)>/g)].map((m) => m[1]);
      expect(scripts.length).toBeGreaterThan(0);
      for (const attrs of scripts) expect(attrs).toMatch(/src=/);
      for (const src of [...page.text.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1])) {
        const res = await t.http().get(new URL(src, 'http://x/docs/').pathname);
        expect(res.status, src).toBe(200);
      }
      expect((await t.http().get('/docs-json')).status).toBe(200);
    });
  });

  describe('CORS', () => {
    it('is closed by default: no Access-Control-Allow-Origin for any origin, and a preflight is refused 403', async () => {
      const simple = await t.http().get('/health').set('Origin', 'https://app.example.com');
      expect(simple.headers['access-control-allow-origin']).toBeUndefined();
      const pre = await t
        .http()
        .options(SMS)
        .set('Origin', 'https://app.example.com')
        .set('Access-Control-Request-Method', 'POST');
      expect(pre.status).toBe(403);
      expect(pre.headers['access-control-allow-origin']).toBeUndefined();
      expect(pre.body.error.code).toBe('FORBIDDEN');
    });

    it('allows exactly the origins in CORS_ORIGINS, with Vary: Origin and the headers a page may read', async () => {
      const ok = await c
        .http()
        .post(SMS)
        .set('Origin', 'https://app.example.com')
        .set('X-API-Key', cTenant.key)
        .send(GOOD);
      expect(ok.status).toBe(200);
      expect(ok.headers['access-control-allow-origin']).toBe('https://app.example.com');
      expect(ok.headers.vary).toMatch(/Origin/);
      expect(ok.headers['access-control-expose-headers']).toMatch(/X-Request-Id/);
      expect(ok.headers['access-control-expose-headers']).toMatch(/RateLimit-Remaining.*Idempotent-Replayed/);
      expect(ok.headers['access-control-allow-credentials']).toBeUndefined();
      const other = await c.http().get('/health').set('Origin', 'https://evil.example.com');
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
      expect(other.headers.vary).toMatch(/Origin/);
    });

    it('answers a preflight from a listed origin 204 with the methods and headers, and refuses others 403', async () => {
      const pre = await c
        .http()
        .options(SMS)
        .set('Origin', 'http://localhost:8080')
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'x-api-key, content-type');
      expect(pre.status).toBe(204);
      expect(pre.headers['access-control-allow-origin']).toBe('http://localhost:8080');
      expect(pre.headers['access-control-allow-methods']).toMatch(/POST/);
      expect(pre.headers['access-control-allow-headers']).toMatch(/X-API-Key/);
      expect(pre.headers['access-control-allow-headers']).toMatch(/Idempotency-Key/);
      const refused = await c
        .http()
        .options(SMS)
        .set('Origin', 'http://localhost:8081')
        .set('Access-Control-Request-Method', 'POST');
      expect(refused.status).toBe(403);
      expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  it('ignores X-Forwarded-For without TRUST_PROXY: a key allowed only for 203.0.113.7 stays refused from loopback', async () => {
    const fenced = await createTenant(t, { key: { allowedIps: ['203.0.113.7'] } });
    const res = await t
      .http()
      .post(SMS)
      .set('X-API-Key', fenced.key)
      .set('X-Forwarded-For', '203.0.113.7')
      .send(GOOD);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('IP_NOT_ALLOWED');
  });

  describe('limits', () => {
    it('applies the documented server limits by default', () => {
      const s = t.app.getHttpServer() as import('node:http').Server & { maxHeaderSize: number };
      expect({
        maxHeaderSize: s.maxHeaderSize,
        headersTimeout: s.headersTimeout,
        requestTimeout: s.requestTimeout,
        keepAliveTimeout: s.keepAliveTimeout,
        maxRequestsPerSocket: s.maxRequestsPerSocket,
      }).toEqual({
        maxHeaderSize: 16_384,
        headersTimeout: 20_000,
        requestTimeout: 60_000,
        keepAliveTimeout: 5000,
        maxRequestsPerSocket: 1000,
      });
    });

    it('parses JSON nested 32 levels and refuses 33 (MAX_JSON_DEPTH) with 400 MALFORMED_BODY, storing nothing', async () => {
      expect(expectJsonError(await postJson(port, tenant.key, SMS, nestedSms(32)))).toBe('VALIDATION_ERROR');
      const before = await allRequestsCount(t);
      for (const body of [
        nestedSms(33),
        '['.repeat(10_000) + ']'.repeat(10_000),
        '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000),
        `{"to":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
      ]) {
        const res = await postJson(port, tenant.key, SMS, body);
        expect(res.status).toBe(400);
        expect(expectJsonError(res)).toBe('MALFORMED_BODY');
      }
      expect(await allRequestsCount(t)).toBe(before);
    });

    it('uses MAX_JSON_DEPTH from the configuration', async () => {
      expect(expectJsonError(await postJson(cPort, cTenant.key, SMS, nestedSms(4)))).toBe('VALIDATION_ERROR');
      const res = await postJson(cPort, cTenant.key, SMS, nestedSms(5));
      expect(expectJsonError(res)).toBe('MALFORMED_BODY');
    });

    it('limits the body per endpoint, sized for 10,000 recipients: 1.3 MB on JSON sends, 336 KB on XML, 16 KB on balance, with 413 PAYLOAD_TOO_LARGE', async () => {
      const limits = bodyLimitsFor(10_000);
      expect(limits).toMatchObject({ send: 1_345_536, xml: 336_384, small: 16_384 });
      const big = (n: number) => JSON.stringify({ ...GOOD, message: 'x'.repeat(n) });
      expect(expectJsonError(await postJson(port, tenant.key, SMS, big(limits.send)))).toBe(
        'PAYLOAD_TOO_LARGE',
      );
      expect(expectJsonError(await postJson(port, tenant.key, SMS, big(limits.send - 100)))).toBe(
        'MESSAGE_TOO_LONG',
      );

      const xml = (n: number) => xmlDoc({ ...GOOD_XML, message: 'x'.repeat(n) });
      const post = (body: string) =>
        rawRequest(port, {
          method: 'POST',
          path: XML,
          headers: { 'X-API-Key': tenant.key, 'Content-Type': 'application/xml' },
          body,
        });
      expect(expectXmlError(await post(xml(limits.xml)))).toBe('PAYLOAD_TOO_LARGE');
      expect(expectXmlError(await post(xml(limits.xml - 200)))).toBe('MESSAGE_TOO_LONG');

      const balance = (n: number) => JSON.stringify({ username: 'u'.repeat(n), password: 'p' });
      expect(
        expectJsonError(await postJson(port, tenant.key, '/api/v1/json/balance', balance(17 * 1024))),
      ).toBe('PAYLOAD_TOO_LARGE');
      expect(
        expectJsonError(await postJson(port, tenant.key, '/api/v1/json/balance', balance(15 * 1024))),
      ).toBe('VALIDATION_ERROR');
    });

    it('uses XML_BODY_LIMIT from the configuration', async () => {
      const res = await rawRequest(cPort, {
        method: 'POST',
        path: XML,
        headers: { 'X-API-Key': cTenant.key },
        body: xmlDoc({ ...GOOD_XML, message: 'x'.repeat(3000) }),
      });
      expect(expectXmlError(res)).toBe('PAYLOAD_TOO_LARGE');
    });

    it('refuses a gzip bomb with 413 (the limit counts inflated bytes) and a body that is not what its Content-Encoding says with 400', async () => {
      const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024, 0x20));
      expect(bomb.length).toBeLessThan(100_000);
      expect(
        expectJsonError(await postJson(port, tenant.key, SMS, bomb, { 'Content-Encoding': 'gzip' })),
      ).toBe('PAYLOAD_TOO_LARGE');
      expect(
        expectJsonError(
          await postJson(port, tenant.key, SMS, JSON.stringify(GOOD), { 'Content-Encoding': 'gzip' }),
        ),
      ).toBe('MALFORMED_BODY');
      expect(
        expectJsonError(
          await postJson(port, tenant.key, SMS, JSON.stringify(GOOD), { 'Content-Encoding': 'x-unknown' }),
        ),
      ).toBe('UNSUPPORTED_MEDIA_TYPE');
      const zipped = await postJson(port, tenant.key, SMS, gzipSync(JSON.stringify(GOOD)), {
        'Content-Encoding': 'gzip',
      });
      expect(zipped.status).toBe(200);
    });

    it('answers a JSON endpoint given a non-JSON Content-Type with 415 UNSUPPORTED_MEDIA_TYPE, storing nothing', async () => {
      const before = await allRequestsCount(t);
      for (const type of [
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/xml',
        'multipart/form-data; boundary=x',
        undefined,
      ]) {
        const res = await postJson(port, tenant.key, SMS, JSON.stringify(GOOD), { 'Content-Type': type });
        expect(res.status, String(type)).toBe(415);
        expect(expectJsonError(res)).toBe('UNSUPPORTED_MEDIA_TYPE');
      }
      expect(await allRequestsCount(t)).toBe(before);
      // No body at all is not a media type question: the fields are missing.
      expect(
        expectJsonError(
          await rawRequest(port, { method: 'POST', path: SMS, headers: { 'X-API-Key': tenant.key } }),
        ),
      ).toBe('VALIDATION_ERROR');
    });

    it('refuses a request head over 16 KiB with 431 in the error envelope, and takes 12 KiB', async () => {
      const ok = await rawRequest(port, {
        method: 'GET',
        path: '/health/live',
        headers: { 'X-Padding': 'a'.repeat(12 * 1024) },
      });
      expect(ok.status).toBe(200);
      const big = await rawRequest(port, {
        method: 'GET',
        path: '/health/live',
        headers: { 'X-Padding': 'a'.repeat(20 * 1024) },
      });
      expect(big.status).toBe(431);
      expect(expectJsonError(big)).toBe('HEADERS_TOO_LARGE');
      const longUrl = await rawRequest(port, {
        method: 'GET',
        path: `/api/v1/json/messages/${'x'.repeat(20_000)}`,
      });
      expect(expectJsonError(longUrl)).toBe('HEADERS_TOO_LARGE');
    });

    it('uses HTTP_MAX_HEADER_SIZE from the configuration', async () => {
      const res = await rawRequest(cPort, {
        method: 'GET',
        path: '/health/live',
        headers: { 'X-Padding': 'a'.repeat(10 * 1024) },
      });
      expect(expectJsonError(res)).toBe('HEADERS_TOO_LARGE');
    });

    it('answers bytes that are not HTTP with 400 MALFORMED_REQUEST in the envelope and closes', async () => {
      const conn = new RawConnection(port);
      conn.write('HELLO THERE\r\n\r\n');
      const [res] = await conn.responses(1);
      expect(res.head).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(res.body)).toMatchObject({ success: false, error: { code: 'MALFORMED_REQUEST' } });
      await conn.closed;
    });

    it('cuts off a client that sends its headers too slowly (HTTP_HEADERS_TIMEOUT_MS) with 408', async () => {
      const conn = new RawConnection(cPort);
      conn.write('GET /health/live HTTP/1.1\r\nHost: x\r\n');
      void conn.drip('X-Slow: ' + 'a'.repeat(200), 100);
      const closedAfter = await conn.closed;
      expect(closedAfter).toBeGreaterThanOrEqual(900);
      expect(closedAfter).toBeLessThan(3000);
      expect(conn.received).toMatch(/^HTTP\/1\.1 408 /);
      expect(conn.received).toMatch(/"code":"REQUEST_TIMEOUT"/);
    });

    it('cuts off a client that sends its body too slowly (HTTP_REQUEST_TIMEOUT_MS) with 408, storing nothing', async () => {
      const before = await allRequestsCount(c);
      const body = JSON.stringify(GOOD);
      const conn = new RawConnection(cPort);
      conn.write(
        `POST ${XML} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${cTenant.key}\r\nContent-Type: application/xml\r\nContent-Length: ${body.length + 500}\r\n\r\n`,
      );
      void conn.drip(body + ' '.repeat(500), 100);
      const closedAfter = await conn.closed;
      expect(closedAfter).toBeGreaterThanOrEqual(1900);
      expect(closedAfter).toBeLessThan(4000);
      // On the XML route, in XML.
      expect(conn.received).toMatch(/^HTTP\/1\.1 408 /);
      expect(conn.received).toMatch(/<code>REQUEST_TIMEOUT<\/code>/);
      expect(await allRequestsCount(c)).toBe(before);
    });

    it('closes an idle keep-alive connection after HTTP_KEEP_ALIVE_TIMEOUT_MS', async () => {
      const conn = new RawConnection(cPort);
      conn.write('GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n');
      const [res] = await conn.responses(1);
      expect(res.head).toMatch(/\r\nKeep-Alive: timeout=1/i);
      const started = Date.now();
      await conn.closed;
      expect(Date.now() - started).toBeGreaterThanOrEqual(700);
      expect(Date.now() - started).toBeLessThan(3000);
    });

    it('closes a connection after HTTP_MAX_REQUESTS_PER_SOCKET requests', async () => {
      const conn = new RawConnection(cPort);
      for (let i = 1; i <= 3; i++) {
        conn.write('GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n');
        const all = await conn.responses(i);
        expect(all[i - 1].head).toMatch(/^HTTP\/1\.1 200 /);
        expect(/\r\nConnection: close/i.test(all[i - 1].head), `response ${i}`).toBe(i === 3);
      }
      await conn.closed;
    });

    it('refuses XML nested deeper than 8 levels, with more than 20,000 elements, or with any DOCTYPE (bombs, XXE) with 400 MALFORMED_BODY, storing nothing', async () => {
      const before = await allRequestsCount(t);
      const post = (body: string) =>
        rawRequest(port, {
          method: 'POST',
          path: XML,
          headers: { 'X-API-Key': tenant.key, 'Content-Type': 'application/xml' },
          body,
        });
      const nested = (n: number) =>
        `<request><from>ACME</from><to>260971234567</to><source>API</source><message>${'<a>'.repeat(n)}x${'</a>'.repeat(n)}</message></request>`;
      // Root, message and six <a>: eight levels is a (refused-as-not-text) document, nine is too deep.
      expect(expectXmlError(await post(nested(6)))).toBe('VALIDATION_ERROR');
      for (const body of [
        nested(7),
        nested(20_000),
        // Within the byte limit, past the element count.
        `<request>${'<to/>'.repeat(20_001)}<from>ACME</from><message>x</message><source>API</source></request>`,
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><request><from>ACME</from><to>260971234567</to><message>&lol2;</message><source>API</source></request>',
        '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><request><from>ACME</from><to>260971234567</to><message>&xxe;</message><source>API</source></request>',
      ]) {
        expect(expectXmlError(await post(body))).toBe('MALFORMED_BODY');
      }
      expect(await allRequestsCount(t)).toBe(before);
    });

    it('refuses inconsistent or malformed limit settings at start, naming the variable', () => {
      const bad = (overrides: Record<string, string>) => () => loadConfig(testEnv(uniqueName(), overrides));
      expect(bad({ HTTP_HEADERS_TIMEOUT_MS: '30000', HTTP_REQUEST_TIMEOUT_MS: '10000' })).toThrow(
        /HTTP_HEADERS_TIMEOUT_MS/,
      );
      expect(bad({ CORS_ORIGINS: 'app.example.com' })).toThrow(ConfigError);
      expect(bad({ CORS_ORIGINS: 'https://app.example.com/path' })).toThrow(/CORS_ORIGINS/);
      expect(bad({ MAX_JSON_DEPTH: '0' })).toThrow(/MAX_JSON_DEPTH/);
      expect(bad({ XML_BODY_LIMIT: 'lots' })).toThrow(/XML_BODY_LIMIT/);
      expect(
        loadConfig(testEnv(uniqueName(), { CORS_ORIGINS: 'https://App.Example.com:443' })).http.corsOrigins,
      ).toEqual(['https://app.example.com']);
    });
  });

  describe('callback URLs', () => {
    it('refuses an http:// callback_url at request time with INVALID_CALLBACK_URL when CALLBACK_HTTPS_ONLY is on, storing nothing', async () => {
      const before = await allRequestsCount(c);
      const json = await c
        .http()
        .post(SMS)
        .set('X-API-Key', cTenant.key)
        .send({ ...GOOD, callback_url: 'http://example.com/hook' });
      expect(json.status).toBe(400);
      expect(json.body.error).toEqual({
        code: 'INVALID_CALLBACK_URL',
        details: [{ field: 'callback_url', message: 'must use https' }],
      });
      const xml = await rawRequest(cPort, {
        method: 'POST',
        path: XML,
        headers: { 'X-API-Key': cTenant.key },
        body: xmlDoc({ ...GOOD_XML, callback_url: 'http://example.com/hook' }),
      });
      expect(expectXmlError(xml)).toBe('INVALID_CALLBACK_URL');
      expect(await allRequestsCount(c)).toBe(before);
      const https = await c
        .http()
        .post(SMS)
        .set('X-API-Key', cTenant.key)
        .send({ ...GOOD, callback_url: 'https://example.com/hook' });
      expect(https.status).toBe(200);
    });

    it('accepts an http:// callback_url when CALLBACK_HTTPS_ONLY is off (the default)', async () => {
      const res = await t
        .http()
        .post(SMS)
        .set('X-API-Key', tenant.key)
        .send({ ...GOOD, callback_url: 'http://example.com/hook' });
      expect(res.status).toBe(200);
    });

    it('refuses localhost written with a trailing dot (localhost.) as a callback target', async () => {
      const res = await t
        .http()
        .post(SMS)
        .set('X-API-Key', tenant.key)
        .send({ ...GOOD, callback_url: 'https://localhost./hook' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_CALLBACK_URL');
    });
  });

  describe('secrets', () => {
    it('never echoes the API key or the password in an error body or a health answer', async () => {
      const marker = `pw-${'s3cr3t'}-${Date.now()}`;
      const key = tenant.key;
      const answers: Array<{ status: number; text: string; headers: Record<string, unknown> }> = [];
      const keep = (res: { status: number; text: string; headers: Record<string, unknown> }) =>
        answers.push(res);
      const creds = { username: tenant.username, password: marker };
      keep(await t.http().post('/api/v1/json/balance').set('X-API-Key', key).send(creds));
      keep(
        await t
          .http()
          .post('/api/v1/json/balance')
          .set('X-API-Key', key)
          .send({ username: tenant.username, password: [marker] }),
      );
      keep(
        await t
          .http()
          .post('/api/v1/json/balance')
          .set('X-API-Key', key)
          .send({ username: tenant.username, password: marker.repeat(200) }),
      );
      keep(
        await t
          .http()
          .post('/api/v1/json/bulk/chat')
          .set('X-API-Key', key)
          .send({ ...creds, senderid: 'x', message: 'm', recipient: ['1'] }),
      );
      keep(
        await t
          .http()
          .post('/api/v1/json/bulk/chat')
          .set('X-API-Key', key)
          .send({
            username: tenant.username,
            password: tenant.password,
            senderid: 'nope',
            message: 'm',
            recipient: ['1'],
          }),
      );
      keep(
        await t
          .http()
          .post(SMS)
          .set('X-API-Key', key)
          .set('Content-Type', 'application/json')
          .send(`{"password":"${marker}", "from":`),
      );
      keep(
        await t
          .http()
          .post(SMS)
          .set('X-API-Key', key)
          .set('Content-Type', 'text/plain')
          .send(`password=${marker}&key=${key}`),
      );
      keep(await t.http().post(SMS).set('X-API-Key', `${key}x`).send(GOOD));
      keep(await t.http().post(SMS).set('Authorization', `Bearer ${key}x`).send(GOOD));
      keep(
        await t
          .http()
          .post(XML)
          .set('X-API-Key', key)
          .set('Content-Type', 'application/xml')
          .send(`<request><password>${marker}</password></request>`),
      );
      keep(
        await t
          .http()
          .get(`/api/v1/json/messages/${encodeURIComponent(marker)}`)
          .set('X-API-Key', key),
      );
      for (const path of ['/health', '/health/live', '/health/ready', '/health/detailed', '/metrics'])
        keep(await t.http().get(path).set('X-API-Key', key));
      expect(answers.filter((a) => a.status >= 400).length).toBeGreaterThanOrEqual(10);
      for (const a of answers) {
        const everything = a.text + JSON.stringify(a.headers);
        expect(everything).not.toContain(marker);
        expect(everything).not.toContain(tenant.password);
        expect(everything).not.toContain(key.slice(8));
        expect(everything).not.toMatch(/mysql:\/\/|redis:\/\/|at \w+ \(|password_hash|SELECT /);
      }
    });

    it('stores passwords as argon2id hashes', async () => {
      const { passwordHash } = (await t.app.get(AccountsService).credentials(tenant.account.id))!;
      expect(passwordHash).toMatch(/^\$argon2id\$v=19\$/);
      expect(passwordHash).not.toContain(tenant.password);
    });

    it('stores API keys only as their SHA-256', async () => {
      const row = await apiKeyRow(t, tenant.apiKey.id);
      expect(Buffer.from(row.key_hash).equals(hashApiKey(tenant.key))).toBe(true);
      expect(JSON.stringify(row)).not.toContain(tenant.key.slice(8));
    });
  });
});
