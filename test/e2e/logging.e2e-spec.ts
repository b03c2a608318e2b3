import { randomBytes } from 'node:crypto';
import { Body, Controller, Logger as NestLogger, Module, Post } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShortLinkStore } from '../../src/modules/links/short-link.store.js';
import { Public } from '../../src/platform/http/public.decorator.js';
import { LOG_DESTINATION } from '../../src/platform/logging/logging.module.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

/** A route that logs through Nest's Logger while handling a request, with a secret in the logged object. */
@Controller('logging-probe')
class LoggingProbeController {
  @Public()
  @Post()
  probe(@Body() body: Record<string, unknown>) {
    new NestLogger('Probe').log({
      msg: 'inside a request',
      password: body.password,
      api_key: body.api_key,
      note: 'visible',
    });
    return { ok: true };
  }
}

@Module({ controllers: [LoggingProbeController] })
class LoggingProbeModule {}

interface Line {
  level: string;
  msg?: string;
  request_id?: string;
  context?: string;
  req?: { method: string; url: string; headers: Record<string, string> };
  res?: { status_code: number };
  [k: string]: unknown;
}

/** The app as api.ts builds it (pino as Nest's logger), writing its log lines into `lines`. */
function startLoggingApp(logLevel: string, lines: string[]): Promise<TestApp> {
  const destination = { write: (chunk: string) => void lines.push(...chunk.split('\n').filter(Boolean)) };
  return startTestApp({ LOG_LEVEL: logLevel }, undefined, {
    imports: [LoggingProbeModule],
    override: (b) => b.overrideProvider(LOG_DESTINATION).useValue(destination),
    appLogger: true,
  });
}

describe('structured request logs (LOG_LEVEL=info)', () => {
  const raw: string[] = [];
  let t: TestApp;
  let tenant: Tenant;
  const parsed = () => raw.map((l) => JSON.parse(l) as Line);
  const linesOf = (requestId: string) => parsed().filter((l) => l.request_id === requestId);
  const accessLines = (requestId: string) => linesOf(requestId).filter((l) => l.res && l.req);

  beforeAll(async () => {
    t = await startLoggingApp('info', raw);
    tenant = await createTenant(t);
  });
  afterAll(async () => t?.close());

  it('writes one JSON object per line', () => {
    expect(raw.length).toBeGreaterThan(0);
    for (const line of raw) expect(() => JSON.parse(line)).not.toThrow();
    expect(parsed()[0]).toMatchObject({
      level: expect.any(String),
      time: expect.stringMatching(/^\d{4}-/),
      service: 'bulk-messaging',
    });
  });

  it('logs one access line per request, carrying our X-Request-Id, with the key, password and cookie nowhere', async () => {
    const requestId = `log-test-${randomBytes(6).toString('hex')}`;
    const cookie = `session=cookie-${randomBytes(8).toString('hex')}`;
    const res = await t
      .http()
      .post('/api/v1/json/balance')
      .set('X-Request-Id', requestId)
      .set('X-API-Key', tenant.key)
      .set('Cookie', cookie)
      .send({ username: tenant.username, password: tenant.password });
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe(requestId);
    const access = await waitFor(
      async () => (accessLines(requestId).length ? accessLines(requestId) : undefined),
      2000,
      'access line',
    );
    expect(access).toHaveLength(1);
    expect(access[0]).toMatchObject({
      level: 'info',
      request_id: requestId,
      msg: expect.stringMatching(/^POST \/api\/v1\/json\/balance 200 \d+ms$/),
      req: {
        method: 'POST',
        url: '/api/v1/json/balance',
        headers: { 'x-api-key': '[REDACTED]', cookie: '[REDACTED]' },
      },
      res: { status_code: 200 },
      response_time_ms: expect.any(Number),
    });
    expect(access[0].req).not.toHaveProperty('body');
    const all = raw.join('\n');
    expect(all).not.toContain(tenant.key);
    expect(all).not.toContain(tenant.password);
    expect(all).not.toContain(cookie.split('=')[1]);
  });

  it('writes no query string and no unsubscribe token to the access log', async () => {
    const ref = `ref-${randomBytes(8).toString('hex')}`;
    const search = await t
      .http()
      .get(`/api/v1/json/messages?user_reference_id=${ref}&recipient=260971234567`)
      .set('X-Request-Id', 'log-test-query')
      .set('X-API-Key', tenant.key);
    expect(search.status).toBe(200);
    const token = randomBytes(12).toString('hex');
    await t.http().post(`/unsubscribe/${token}?from=mail`).set('X-Request-Id', 'log-test-token');
    await waitFor(async () => accessLines('log-test-token').length === 1, 2000, 'access line');
    expect(accessLines('log-test-query')[0]).toMatchObject({
      msg: expect.stringMatching(/^GET \/api\/v1\/json\/messages\?\[redacted\] 200 \d+ms$/),
      req: { url: '/api/v1/json/messages?[redacted]' },
    });
    expect(accessLines('log-test-token')[0].req?.url).toBe('/unsubscribe/[redacted]?[redacted]');
    const all = raw.join('\n');
    expect(all).not.toContain(ref);
    expect(all).not.toContain('260971234567');
    expect(all).not.toContain(token);
  });

  it('writes no access line for a followed short link, and one for a code that is not found', async () => {
    const code = `Log${randomBytes(4).toString('hex')}`;
    const link = { code, messageId: '1', position: 0, url: 'https://acme.example/x', createdAt: new Date() };
    await t.ds.transaction((em) => t.app.get(ShortLinkStore).insert(em, [link]));
    expect((await t.http().get(`/l/${code}`).set('X-Request-Id', 'log-test-link')).status).toBe(302);
    expect((await t.http().get('/l/Zz9Zz9Zz9Z').set('X-Request-Id', 'log-test-nolink')).status).toBe(404);
    // Lines are written in the order the answers end: the 404's comes after the 302's would have.
    await waitFor(async () => accessLines('log-test-nolink').length === 1, 2000, 'access line');
    expect(accessLines('log-test-nolink')[0]).toMatchObject({ level: 'info', res: { status_code: 404 } });
    expect(accessLines('log-test-link')).toEqual([]);
  });

  it('redacts the key sent as a Bearer token or as HTTP Basic, and never logs message bodies', async () => {
    const body = `body-${randomBytes(8).toString('hex')}`;
    const bearer = await t
      .http()
      .post('/api/v1/json/bulk/sms')
      .set('X-Request-Id', 'log-test-bearer')
      .set('Authorization', `Bearer ${tenant.key}`)
      .send({ from: 'ACME', to: '260971234567', message: body });
    expect(bearer.status).toBe(200);
    const basic = await t
      .http()
      .post('/api/v1/json/bulk/email')
      .set('X-Request-Id', 'log-test-basic')
      .auth(tenant.key, '')
      .send({ from: 'a@acme.example', to: 'b@example.com', subject: 's', email_body: body });
    expect(basic.status).toBe(200);
    await waitFor(async () => accessLines('log-test-basic').length === 1, 2000, 'access line');
    expect(accessLines('log-test-bearer')[0].req?.headers.authorization).toBe('[REDACTED]');
    expect(accessLines('log-test-basic')[0].req?.headers.authorization).toBe('[REDACTED]');
    const all = raw.join('\n');
    expect(all).not.toContain(tenant.key);
    expect(all).not.toContain(Buffer.from(`${tenant.key}:`).toString('base64'));
    expect(all).not.toContain(body);
  });

  it('puts the request id on lines the application logs while handling the request, redacting secrets in logged objects', async () => {
    const secret = `pw-${randomBytes(8).toString('hex')}`;
    const res = await t
      .http()
      .post('/logging-probe')
      .set('X-Request-Id', 'log-test-inside')
      .send({ password: secret, api_key: secret });
    expect(res.status).toBe(201);
    const inside = await waitFor(
      async () => linesOf('log-test-inside').find((l) => l.msg === 'inside a request'),
      2000,
      'app line',
    );
    expect(inside).toMatchObject({
      request_id: 'log-test-inside',
      context: 'Probe',
      password: '[REDACTED]',
      api_key: '[REDACTED]',
      note: 'visible',
    });
    expect(raw.join('\n')).not.toContain(secret);
  });

  it('still logs requests refused before routing (malformed JSON) with their request id, once', async () => {
    const res = await t
      .http()
      .post('/api/v1/json/bulk/sms')
      .set('X-Request-Id', 'log-test-malformed')
      .set('X-API-Key', tenant.key)
      .set('Content-Type', 'application/json')
      .send('{"from": ');
    expect(res.status).toBe(400);
    await waitFor(async () => accessLines('log-test-malformed').length === 1, 2000, 'access line');
    expect(accessLines('log-test-malformed')[0]).toMatchObject({ level: 'info', res: { status_code: 400 } });
    expect(raw.join('\n')).not.toContain(tenant.key);
  });

  it('generates a request id when none is sent and logs the same one the response carries', async () => {
    const res = await t.http().get('/api/v1/json/messages/12345').set('X-API-Key', tenant.key);
    expect(res.status).toBe(404);
    const id = res.headers['x-request-id'] as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await waitFor(async () => accessLines(id).length === 1, 2000, 'access line');
    expect(res.body.request_id).toBe(id);
  });
});

describe('LOG_LEVEL', () => {
  it('at warn, successful requests write no access line', async () => {
    const raw: string[] = [];
    const t = await startLoggingApp('warn', raw);
    try {
      expect((await t.http().get('/health').set('X-Request-Id', 'log-test-warn')).status).toBe(200);
      await new Promise((r) => setTimeout(r, 100));
      expect(raw.filter((l) => l.includes('log-test-warn'))).toEqual([]);
      expect(raw.every((l) => ['warn', 'error', 'fatal'].includes((JSON.parse(l) as Line).level))).toBe(true);
    } finally {
      await t.close();
    }
  });
});
