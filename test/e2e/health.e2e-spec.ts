import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CacheStats } from '../../src/modules/metrics/cache-stats.service.js';
import { RedisInstance } from '../support/redis-instance.js';
import { startSmppPeer, type SmppPeer } from '../support/smpp-peer.js';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer.js';
import { startHttpPeer, type HttpPeer } from '../support/http-peer.js';
import { startSilentListener, startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { dropTestState, startTestApp, uniqueName, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MEMBERS = [
  'cache',
  'database',
  'log_database',
  'notification_database',
  'message_queue',
  'external_services',
];

const healthy = (extra: Record<string, unknown>) => ({
  status: 'healthy',
  message: expect.any(String),
  ...extra,
});

async function timedGet(t: TestApp, path: string) {
  const started = Date.now();
  const res = await t.http().get(path);
  return { res, ms: Date.now() - started };
}

describe('health probes against real dependencies (own Redis, log database behind a relay)', () => {
  let t: TestApp;
  let redis: RedisInstance;
  let logDb: TcpProxy;
  const name = uniqueName();

  beforeAll(async () => {
    redis = await RedisInstance.start();
    logDb = await startTcpProxy({ host: '127.0.0.1', port: 3306 });
    t = await startTestApp(
      { REDIS_URL: redis.url, LOG_DATABASE_URL: `mysql://root@127.0.0.1:${logDb.port}/${name}_log` },
      name,
    );
  });
  afterAll(async () => {
    await t?.app.close();
    await dropTestState(name, redis.url);
    await redis?.stop();
    await logDb?.close();
  });

  it('/health/detailed answers the documented shape: every member healthy, with its typed extra field', async () => {
    const { res, ms } = await timedGet(t, '/health/detailed');
    expect(res.status).toBe(200);
    expect(ms).toBeLessThan(1000);
    expect(res.body).toEqual({
      status: 'healthy',
      service: 'bulk-messaging',
      environment: 'test',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      timestamp: expect.stringMatching(ISO_MS),
      uptime: { human_readable: expect.stringMatching(/^(\d+[dhm] )*\d+s$/), seconds: expect.any(Number) },
      checks: {
        cache: healthy({ hit_ratio: expect.any(Number) }),
        database: healthy({ response_time_ms: expect.any(Number), node: expect.stringMatching(/^\S+:\d+$/) }),
        log_database: healthy({ response_time_ms: expect.any(Number) }),
        notification_database: healthy({ response_time_ms: expect.any(Number) }),
        message_queue: healthy({ queue_size: expect.any(Number), redis_primary: `127.0.0.1:${redis.port}` }),
        external_services: healthy({
          client_server: healthy({ response_time_ms: expect.any(Number) }),
          sms_server: healthy({ response_time_ms: expect.any(Number) }),
        }),
      },
    });
    const c = res.body.checks;
    expect(Object.keys(c)).toEqual(MEMBERS);
    expect(Number.isInteger(res.body.uptime.seconds)).toBe(true);
    for (const m of [
      c.database,
      c.log_database,
      c.notification_database,
      c.external_services.sms_server,
      c.external_services.client_server,
    ]) {
      expect(Number.isInteger(m.response_time_ms)).toBe(true);
    }
    expect(Number.isInteger(c.message_queue.queue_size)).toBe(true);
    expect(c.cache.hit_ratio).toBeGreaterThanOrEqual(0);
    expect(c.cache.hit_ratio).toBeLessThanOrEqual(1);
    // Sandbox transports say so.
    expect(c.external_services.sms_server.message).toMatch(/sandbox/);
    expect(c.external_services.client_server.message).toMatch(/sandbox/);
  });

  it('cache.hit_ratio is the API-key cache hits over lookups counted by CacheStats (1 before any lookup)', async () => {
    const stats = t.app.get(CacheStats);
    const before = stats.snapshot();
    if (before.hits + before.misses === 0) {
      expect((await t.http().get('/health/detailed')).body.checks.cache.hit_ratio).toBe(1);
    }
    for (let i = 0; i < 30; i++) stats.hit();
    stats.miss();
    const { hits, misses } = stats.snapshot();
    const res = await t.http().get('/health/detailed');
    expect(res.body.checks.cache.hit_ratio).toBeCloseTo(hits / (hits + misses), 4);
  });

  it('message_queue.queue_size counts the jobs waiting, active or delayed over every queue', async () => {
    const base = (await t.http().get('/health/detailed')).body.checks.message_queue.queue_size as number;
    await t.queue('sms').add('send', { sendRequestId: '0', messageIds: [] }, { delay: 60_000 });
    await t.queue('callbacks').add('deliver', {});
    await t.queue('email').add('send', { sendRequestId: '0', messageIds: [] });
    const res = await t.http().get('/health/detailed');
    expect(res.body.checks.message_queue.queue_size).toBe(base + 3);
    await Promise.all(['sms', 'callbacks', 'email'].map((q) => t.queue(q).obliterate({ force: true })));
  });

  it('/health/live and /health/ready answer the documented shapes without a key', async () => {
    const live = await t.http().get('/health/live');
    expect(live.status).toBe(200);
    expect(live.body).toEqual({
      status: 'alive',
      service: 'bulk-messaging',
      timestamp: expect.stringMatching(ISO_MS),
      cpu_usage_percent: expect.any(Number),
      memory_usage_mb: expect.any(Number),
      pid: String(process.pid),
    });
    expect(live.body.memory_usage_mb).toBeGreaterThan(10);
    const ready = await t.http().get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({
      status: 'ready',
      dependencies_ready: true,
      service: 'bulk-messaging',
      timestamp: expect.stringMatching(ISO_MS),
    });
    const basic = await t.http().get('/health');
    expect(basic.body).toMatchObject({ status: 'ok', environment: 'test', uptime: expect.any(String) });
  });

  it('answers within 1 s with log_database unhealthy (timed out) while the log database hangs, and recovers', async () => {
    logDb.hang();
    try {
      const { res, ms } = await timedGet(t, '/health/detailed');
      expect(ms).toBeLessThan(1000);
      expect(res.status).toBe(503);
      expect(res.body.status).toBe('unhealthy');
      expect(res.body.checks.log_database).toEqual({
        status: 'unhealthy',
        message: expect.stringMatching(/log database is unreachable: .*did not answer within 800 ms/),
        response_time_ms: expect.any(Number),
      });
      expect(res.body.checks.database.status).toBe('healthy');
      expect(res.body.checks.message_queue.status).toBe('healthy');
      // A second probe while the first query is still stuck must not take longer either.
      expect((await timedGet(t, '/health/detailed')).ms).toBeLessThan(1000);
      const ready = await timedGet(t, '/health/ready');
      expect(ready.ms).toBeLessThan(1000);
      expect(ready.res.status).toBe(503);
      expect(ready.res.body).toMatchObject({ status: 'not_ready', dependencies_ready: false });
    } finally {
      logDb.resume();
    }
    await waitFor(async () => (await t.http().get('/health/detailed')).status === 200, 10_000, 'recovery');
  });

  it('answers 503 naming log_database when the log database is unreachable, and recovers when it returns', async () => {
    await logDb.close();
    try {
      const res = await waitFor(
        async () => {
          const r = await t.http().get('/health/detailed');
          return r.body.checks?.log_database?.status === 'unhealthy' ? r : undefined;
        },
        5000,
        'log_database unhealthy',
      );
      expect(res.status).toBe(503);
      expect(res.body.status).toBe('unhealthy');
      expect(res.body.checks.log_database.message).toMatch(/^log database is unreachable: \S/);
      for (const m of ['database', 'notification_database', 'cache', 'message_queue'])
        expect(res.body.checks[m].status).toBe('healthy');
      const ready = await t.http().get('/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body.failed).toEqual([
        { name: 'log_database', message: expect.stringMatching(/unreachable/) },
      ]);
    } finally {
      await logDb.reopen();
    }
    await waitFor(async () => (await t.http().get('/health/detailed')).status === 200, 10_000, 'recovery');
  });

  it('answers 503 naming message_queue when Redis stops, within 1 s, and recovers when it is back', async () => {
    await redis.stop();
    try {
      const res = await waitFor(
        async () => {
          const r = await t.http().get('/health/detailed');
          return r.status === 503 ? r : undefined;
        },
        5000,
        '503',
      );
      expect(res.body.status).toBe('unhealthy');
      expect(res.body.checks.message_queue).toEqual({
        status: 'unhealthy',
        message: expect.stringMatching(/message queue unreachable: .*Redis/),
        queue_size: null,
        redis_primary: null,
      });
      // The API-key cache is in process memory: it keeps serving without Redis.
      for (const m of ['cache', 'database', 'log_database', 'notification_database', 'external_services'])
        expect(res.body.checks[m].status).toBe('healthy');
      expect((await timedGet(t, '/health/detailed')).ms).toBeLessThan(1000);
      const ready = await t.http().get('/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({
        status: 'not_ready',
        dependencies_ready: false,
        failed: [{ name: 'redis', message: expect.any(String) }],
      });
      // Liveness does not depend on other systems.
      expect((await t.http().get('/health/live')).status).toBe(200);
    } finally {
      await redis.start();
    }
    await waitFor(async () => (await t.http().get('/health/detailed')).status === 200, 15_000, 'recovery');
  });
});

describe('provider checks in an API-only process (RUN_WORKERS=false)', () => {
  let t: TestApp;
  let smsc: TcpProxy;
  let peer: SmppPeer;
  let smtp: SmtpPeer;
  let chat: HttpPeer;

  beforeAll(async () => {
    peer = await startSmppPeer();
    smtp = await startSmtpPeer();
    chat = await startHttpPeer();
    smsc = await startTcpProxy({ host: '127.0.0.1', port: peer.port });
    t = await startTestApp({
      SMS_TRANSPORT: 'smpp',
      SMPP_URL: `smpp://test:secret@127.0.0.1:${smsc.port}`,
      EMAIL_TRANSPORT: 'smtp',
      SMTP_URL: smtp.url,
      // The peer speaks plain SMTP; STARTTLS is tested against Exim (exim.e2e-spec.ts).
      SMTP_TLS: 'off',
      CHAT_TRANSPORT: 'http',
      CHAT_API_URL: `${chat.url}/messages`,
    });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([smsc?.close(), peer?.close(), smtp?.close(), chat?.close()]);
  });

  it('probes the SMSC, the SMTP server and the chat API and reports each as healthy', async () => {
    const res = await t.http().get('/health/detailed');
    expect(res.status).toBe(200);
    const ext = res.body.checks.external_services;
    expect(ext.status).toBe('healthy');
    expect(ext.sms_server).toEqual({
      status: 'healthy',
      message: expect.stringMatching(/answered an SMPP enquire_link/),
      response_time_ms: expect.any(Number),
    });
    expect(ext.client_server.message).toMatch(
      /e-mail \(smtp\): SMTP server 127\.0\.0\.1:\d+ answered; chat \(http\): chat API http:\/\/127\.0\.0\.1:\d+ answered HTTP/,
    );
    expect(peer.stats.binds).toBe(0); // probed without taking a session from the SMSC
  });

  it('answers within 1 s with sms_server unhealthy while the SMSC accepts connections and never answers', async () => {
    smsc.hang();
    try {
      const { res, ms } = await timedGet(t, '/health/detailed');
      expect(ms).toBeLessThan(1000);
      expect(res.status).toBe(503);
      expect(res.body.status).toBe('unhealthy');
      expect(res.body.checks.external_services.status).toBe('unhealthy');
      expect(res.body.checks.external_services.message).toMatch(/sms_server/);
      expect(res.body.checks.external_services.sms_server).toEqual({
        status: 'unhealthy',
        message: expect.stringMatching(/accepted the connection but sent no SMPP answer/),
        response_time_ms: expect.any(Number),
      });
      expect(res.body.checks.external_services.client_server.status).toBe('healthy');
      // Providers are not dependencies of readiness: a slow SMSC must not take the API out of rotation.
      expect((await t.http().get('/health/ready')).status).toBe(200);
    } finally {
      smsc.resume();
    }
  });

  it('reports sms_server unhealthy, naming the cause, when nothing listens at SMPP_URL', async () => {
    await smsc.close();
    try {
      const res = await t.http().get('/health/detailed');
      expect(res.status).toBe(503);
      expect(res.body.checks.external_services.sms_server).toMatchObject({
        status: 'unhealthy',
        message: expect.stringMatching(/unreachable: .*ECONNREFUSED/),
      });
    } finally {
      await smsc.reopen();
    }
  });

  it('reports client_server unhealthy when the chat API does not answer in time, within 1 s', async () => {
    chat.setHandler(() => ({ status: 200, delayMs: 3000 }));
    try {
      const { res, ms } = await timedGet(t, '/health/detailed');
      expect(ms).toBeLessThan(1000);
      expect(res.status).toBe(503);
      expect(res.body.checks.external_services.client_server).toMatchObject({
        status: 'unhealthy',
        message: expect.stringMatching(/chat \(http\): chat API .* unreachable/),
      });
    } finally {
      chat.setHandler();
    }
  });
});

describe('sms_server with a silent SMPP listener', () => {
  it('answers within 1 s with sms_server unhealthy (SMS_TRANSPORT=smpp, RUN_WORKERS=false)', async () => {
    const silent = await startSilentListener();
    const t = await startTestApp({ SMS_TRANSPORT: 'smpp', SMPP_URL: `smpp://u:p@127.0.0.1:${silent.port}` });
    try {
      const { res, ms } = await timedGet(t, '/health/detailed');
      expect(ms).toBeLessThan(1000);
      expect(res.status).toBe(503);
      expect(res.body.checks.external_services.sms_server.status).toBe('unhealthy');
      expect(res.body.checks.database.status).toBe('healthy');
    } finally {
      await t.close();
      await silent.close();
    }
  });
});

describe('/health/detailed is for the operator, and a flood of it runs the checks once', () => {
  let t: TestApp;
  let chat: HttpPeer;
  const token = 'health-token-0123456789abcdef';

  beforeAll(async () => {
    chat = await startHttpPeer();
    t = await startTestApp({
      METRICS_TOKEN: token,
      HEALTH_DETAILED_CACHE_MS: '2000',
      CHAT_TRANSPORT: 'http',
      CHAT_API_URL: `${chat.url}/messages`,
    });
  });
  afterAll(async () => {
    await t?.close();
    await chat?.close();
  });

  const detailed = (auth?: string) => {
    const r = t.http().get('/health/detailed');
    return auth ? r.set('Authorization', auth) : r;
  };

  it('refuses /health/detailed without the metrics token, probing nothing, while live and ready stay open', async () => {
    const before = chat.requests.length;
    const none = await detailed();
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('MISSING_API_KEY');
    expect(JSON.stringify(none.body)).not.toContain('127.0.0.1');
    expect((await detailed('Bearer not-the-token-at-all')).status).toBe(401);
    expect(chat.requests.length).toBe(before);
    expect((await t.http().get('/health/live')).status).toBe(200);
    expect((await t.http().get('/health/ready')).status).toBe(200);
  });

  it('answers the operator, and twenty requests at once run the provider probe once', async () => {
    const before = chat.requests.length;
    const answers = await Promise.all(Array.from({ length: 20 }, () => detailed(`Bearer ${token}`)));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(answers[0].body.checks.external_services.client_server.message).toMatch(
      /chat API http:\/\/127\.0\.0\.1/,
    );
    expect(chat.requests.length - before).toBe(1);
    // Within the reuse time, later requests run no probe either.
    expect((await detailed(`Bearer ${token}`)).status).toBe(200);
    expect(chat.requests.length - before).toBe(1);
  });
});
