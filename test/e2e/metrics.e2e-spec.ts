import parsePrometheus, { type PromFamily } from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CacheStats } from '../../src/modules/metrics/cache-stats.service.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { startHttpPeer, type HttpPeer } from '../support/http-peer.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const SMS = '/api/v1/json/bulk/sms';

/**
 * The text parsed as is (it must be valid exposition format), plus a second pass with
 * histograms read as plain series: the parser folds the buckets of differently-labelled
 * series together, so `_count` / `_sum` are read from their own lines.
 */
function parseMetrics(text: string): Map<string, PromFamily> {
  const strict = parsePrometheus(text);
  const loose = parsePrometheus(text.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped'));
  const out = new Map<string, PromFamily>();
  // Untyped, a histogram's lines come out as many small families (…_bucket, …_sum, …_count, again per label set): merge them.
  for (const f of loose) {
    const seen = out.get(f.name);
    if (seen) seen.metrics.push(...f.metrics);
    else out.set(f.name, { ...f, metrics: [...f.metrics] });
  }
  for (const f of strict) out.set(`type:${f.name}`, f);
  return out;
}

function value(m: Map<string, PromFamily>, name: string, labels: Record<string, string> = {}): number {
  const family = m.get(name);
  if (!family) return 0;
  const sample = family.metrics.find((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v));
  return sample ? Number(sample.value) : 0;
}

describe('GET /metrics with METRICS_TOKEN, workers running', () => {
  let t: TestApp;
  let tenant: Tenant;
  let hooks: HttpPeer;

  beforeAll(async () => {
    hooks = await startHttpPeer();
    t = await startTestApp({
      METRICS_TOKEN: TOKEN,
      RUN_WORKERS: 'true',
      SANDBOX_DELIVERY_DELAY_MS: '50',
      CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    tenant = await createTenant(t, { balances: { sms: '1000' } });
  });
  afterAll(async () => {
    await t?.close();
    await hooks?.close();
  });

  const scrape = async () => {
    const res = await t.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    return parseMetrics(res.text);
  };

  it('refuses a scrape without the token or with a wrong one, in the error envelope, and needs no API key', async () => {
    const none = await t.http().get('/metrics');
    expect(none.status).toBe(401);
    expect(none.body).toEqual({
      success: false,
      message: expect.any(String),
      error: { code: 'MISSING_API_KEY', details: [] },
      request_id: expect.any(String),
    });
    expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
    const wrong = await t.http().get('/metrics').set('Authorization', 'Bearer not-the-token-at-all');
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('INVALID_API_KEY');
    // An API key is not a metrics token.
    const key = await t.http().get('/metrics').set('X-API-Key', tenant.key);
    expect(key.status).toBe(401);
  });

  it('serves Prometheus text with default process metrics once and the typed application metrics', async () => {
    const res = await t.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const m = parseMetrics(res.text);
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(m.has(`type:${name}`), name).toBe(true);
    }
    expect(res.text.match(/^# TYPE process_cpu_user_seconds_total /gm)).toHaveLength(1);
    expect(m.get('type:http_requests_total')?.type).toBe('COUNTER');
    expect(m.get('type:http_request_duration_seconds')?.type).toBe('HISTOGRAM');
    expect(m.get('type:bulk_dispatch_latency_seconds')?.type).toBe('HISTOGRAM');
    expect(m.get('type:bulk_queue_jobs')?.type).toBe('GAUGE');
    expect(m.get('type:bulk_messages_total')?.type).toBe('COUNTER');
    expect(m.get('type:bulk_callback_attempts_total')?.type).toBe('COUNTER');
  });

  it('labels HTTP requests by the matched route pattern, never the raw URL, with a latency histogram', async () => {
    const before = await scrape();
    const route = { method: 'GET', route: '/api/v1/json/messages/:messageId', status: '404' };
    const ids = ['01a200fe-0dfd-7511-ad60-13d93139bcee', '01a200fe-0dfd-7511-ad60-13d93139bcef', '12345'];
    for (const id of ids)
      expect((await t.http().get(`/api/v1/json/messages/${id}`).set('X-API-Key', tenant.key)).status).toBe(
        404,
      );
    expect((await t.http().get('/no/such/route/42')).status).toBe(404);
    const res = await t.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
    const after = parseMetrics(res.text);
    expect(value(after, 'http_requests_total', route) - value(before, 'http_requests_total', route)).toBe(3);
    expect(
      value(after, 'http_request_duration_seconds_count', route) -
        value(before, 'http_request_duration_seconds_count', route),
    ).toBe(3);
    expect(
      value(after, 'http_requests_total', { route: '<unrouted>', status: '404' }),
    ).toBeGreaterThanOrEqual(1);
    for (const id of ids) expect(res.text).not.toContain(id);
    expect(res.text).not.toContain('/no/such/route');
  });

  it('counts a send by channel: accepted and rejected at intake, then SENT, DELIVERED and UNDELIVERED, dispatch and delivery latency and callbacks', async () => {
    const before = await scrape();
    const sms = (status: string) => ({ channel: 'sms', status });
    const res = await t
      .http()
      .post(SMS)
      .set('X-API-Key', tenant.key)
      .send({
        from: 'ACME',
        to: ['260971230001', '260971230002', '260971230000', 'not-a-number'],
        message: 'metrics',
        callback_url: `${hooks.url}/hook`,
      });
    expect(res.status).toBe(200);
    const after = await scrape();
    const delta = (m: Map<string, PromFamily>, name: string, labels: Record<string, string>) =>
      value(m, name, labels) - value(before, name, labels);
    expect(delta(after, 'bulk_send_requests_total', { channel: 'sms' })).toBe(1);
    expect(delta(after, 'bulk_messages_total', sms('ACKNOWLEDGED'))).toBe(3);
    expect(delta(after, 'bulk_messages_total', sms('REJECTED'))).toBe(1);

    const done = await waitFor(
      async () => {
        const m = await scrape();
        return delta(m, 'bulk_messages_total', sms('DELIVERED')) === 2 &&
          delta(m, 'bulk_messages_total', sms('UNDELIVERED')) === 1 &&
          delta(m, 'bulk_callback_attempts_total', { outcome: 'delivered' }) >= 6
          ? m
          : undefined;
      },
      15_000,
      'deliveries and callbacks counted',
    );
    expect(delta(done, 'bulk_messages_total', sms('SENT'))).toBe(3);
    expect(delta(done, 'bulk_dispatch_latency_seconds_count', { channel: 'sms' })).toBe(3);
    expect(delta(done, 'bulk_dispatch_latency_seconds_sum', { channel: 'sms' })).toBeGreaterThan(0);
    // Accept → DELIVERED is timed for the two delivered messages only.
    expect(delta(done, 'bulk_delivery_latency_seconds_count', { channel: 'sms' })).toBe(2);
    // SENT + DELIVERED/UNDELIVERED for each of the three accepted messages, one callback each.
    expect(hooks.requests.length).toBeGreaterThanOrEqual(6);
  });

  it('counts API-key cache lookups from CacheStats', async () => {
    const stats = t.app.get(CacheStats);
    stats.hit();
    stats.hit();
    stats.miss();
    const { hits, misses } = stats.snapshot();
    const m = await scrape();
    expect(value(m, 'bulk_api_key_cache_lookups_total', { result: 'hit' })).toBe(hits);
    expect(value(m, 'bulk_api_key_cache_lookups_total', { result: 'miss' })).toBe(misses);
  });
});

describe('GET /metrics without METRICS_TOKEN, API only, next to another app in the same process', () => {
  let a: TestApp;
  let b: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    [a, b] = await Promise.all([startTestApp(), startTestApp()]);
    tenant = await createTenant(b, { balances: { sms: '100' } });
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  it('is open when no token is configured and reports the depth of each queue at scrape time', async () => {
    const res = await b
      .http()
      .post(SMS)
      .set('X-API-Key', tenant.key)
      .send({ from: 'ACME', to: ['260971234567', '260971234568'], message: 'queued' });
    expect(res.status).toBe(200);
    const scraped = await b.http().get('/metrics');
    expect(scraped.status).toBe(200);
    const m = parseMetrics(scraped.text);
    // No workers in this process: the job waits (one job carries up to 200 messages).
    expect(value(m, 'bulk_queue_jobs', { queue: 'sms', state: 'waiting' })).toBe(1);
    expect(value(m, 'bulk_queue_jobs', { queue: 'email', state: 'waiting' })).toBe(0);
    expect(m.get('bulk_queue_jobs')?.metrics.map((s) => s.labels?.queue)).toEqual(
      expect.arrayContaining(['sms', 'email', 'chat', 'callbacks']),
    );
  });

  it("keeps one registry per app: a send on one app does not move the other one's counters", async () => {
    await b
      .http()
      .post(SMS)
      .set('X-API-Key', tenant.key)
      .send({ from: 'ACME', to: '260971234569', message: 'only b' });
    const ma = parseMetrics((await a.http().get('/metrics')).text);
    const mb = parseMetrics((await b.http().get('/metrics')).text);
    expect(value(ma, 'bulk_send_requests_total', { channel: 'sms' })).toBe(0);
    expect(value(mb, 'bulk_send_requests_total', { channel: 'sms' })).toBeGreaterThanOrEqual(2);
  });
});
