import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { dropLocalState, sleep } from '../support/local-state.js';
import { SentinelCluster, sentinelAvailable } from '../support/sentinel-cluster.js';
import { startSmppPeer, type SmppPeer } from '../support/smpp-peer.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { untilDelivered } from '../support/account-messages.js';
import { waitFor } from '../support/wait.js';

/**
 * Redis through Sentinel: a primary, a replica and three sentinels of the suite's own. The
 * primary is SIGKILLed while 3,000 SMS are being handed to the SMSC and sends keep arriving;
 * the sentinels promote the replica and every connection of the app follows it without a restart.
 */

const SMS = '/api/v1/json/bulk/sms';
const METRICS_TOKEN = 'sentinel-metrics-token-0123456789';
const numbers = (n: number, base: number) =>
  Array.from({ length: n }, (_, i) => `26097${String(base + i).padStart(7, '0')}`);

const available = sentinelAvailable();
if (!available) console.warn('SKIPPED: redis-sentinel is not installed (Debian package redis-sentinel)');

describe.skipIf(!available)('Redis Sentinel failover during dispatch', () => {
  const REQUESTS = 10;
  const PER_REQUEST = 300;
  const CONCURRENCY = 2;
  const SLICE = 200;
  let cluster: SentinelCluster;
  let smsc: SmppPeer;
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    cluster = await SentinelCluster.start({ downAfterMs: 1000 });
    smsc = await startSmppPeer({ autoReceipt: 'DELIVRD', receiptDelayMs: 20 });
    t = await startTestApp({
      // Nothing listens here: a connection that ignored the sentinels would find no Redis at all.
      REDIS_URL: 'redis://127.0.0.1:1',
      REDIS_SENTINELS: cluster.sentinels,
      REDIS_SENTINEL_NAME: cluster.name,
      RUN_WORKERS: 'true',
      SMS_TRANSPORT: 'smpp',
      SMPP_URL: smsc.url,
      // Slow enough that most messages are still queued when the primary dies.
      SMPP_TPS: '400',
      SMS_CONCURRENCY: String(CONCURRENCY),
      // Jobs the primary took but had not yet passed to the replica are lost with it: found from MySQL.
      SWEEP_INTERVAL_MS: '500',
      SWEEP_STRANDED_AFTER_MS: '3000',
      METRICS_TOKEN,
    });
    tenant = await createTenant(t, { balances: { sms: '100000' }, prices: { sms: '1' } });
  });
  afterAll(async () => {
    await t?.app.close();
    if (t && cluster)
      await dropLocalState(t.name, `redis://${await cluster.primary()}`).catch(() => undefined);
    await cluster?.destroy();
    await smsc?.close();
  });

  it('follows the promoted replica: every message delivered, repeats within one slice per worker, sends answered 200 or 503 only', async () => {
    const bulk = Array.from({ length: REQUESTS }, (_, k) => numbers(PER_REQUEST, k * 1000));
    for (const [k, to] of bulk.entries()) {
      const res = await t
        .http()
        .post(SMS)
        .set('X-API-Key', tenant.key)
        .send({ from: 'ACME', to, message: `bulk ${k}` });
      expect(res.status).toBe(200);
    }
    const old = await cluster.primary();
    const before = await t.http().get('/health/detailed');
    expect(before.body.checks.message_queue.redis_primary).toBe(old);

    // Single sends all along, through the failover: each answered 200 (kept) or 503 (retryable).
    const answers: Array<{ status: number; at: number; to: string; ms: number }> = [];
    let sending = true;
    const sender = (async () => {
      for (let i = 0; sending; i++) {
        const to = `26098${String(i).padStart(7, '0')}`;
        const started = Date.now();
        const res = await t
          .http()
          .post(SMS)
          .set('X-API-Key', tenant.key)
          .send({ from: 'ACME', to, message: 'live' });
        answers.push({ status: res.status, at: Date.now(), to, ms: Date.now() - started });
        await sleep(20);
      }
    })();

    await waitFor(async () => smsc.received.length >= 300, 30_000, 'dispatch under way');
    const killedAt = Date.now();
    await cluster.kill(Number(old.split(':')[1]));
    const promoted = await cluster.waitForPromotion(old);
    const promotedAt = Date.now();
    // The app's connections find the new primary (the health probe reads the queues' connection).
    await waitFor(
      async () =>
        (await t.http().get('/health/detailed')).body.checks?.message_queue?.redis_primary === promoted,
      20_000,
      `the queues on ${promoted}`,
    );
    const followedAt = Date.now();
    await sleep(1000);
    sending = false;
    await sender;

    const accepted = answers.filter((a) => a.status === 200).map((a) => a.to);
    const everyone = [...bulk.flat(), ...accepted];
    await untilDelivered(
      t,
      tenant.account.id,
      everyone.length,
      () => smsc.received.length + smsc.stats.receiptsAcked,
    );

    expect(answers.filter((a) => a.status !== 200 && a.status !== 503)).toEqual([]);
    const counts = everyone.map((n) => smsc.countByDestination(n));
    expect(counts.filter((c) => c === 0)).toEqual([]);
    // Only the slices the workers held when the primary died can be handed over twice.
    expect(counts.filter((c) => c > 1).length).toBeLessThanOrEqual(CONCURRENCY * SLICE);

    const metrics = await t.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
    const failovers = /^bulk_redis_failovers_total (\d+)/m.exec(metrics.text);
    expect(Number(failovers?.[1])).toBeGreaterThanOrEqual(1);

    const refused = answers.filter((a) => a.status === 503);
    const resumed = smsc.received.find((r) => r.at > promotedAt)?.at;
    console.log(
      `Sentinel failover: promotion ${promotedAt - killedAt} ms after the kill, queues on the new primary ` +
        `${followedAt - killedAt} ms after it, dispatch resumed ${resumed ? resumed - killedAt : 'n/a'} ms after it; ` +
        `${answers.length} live sends (slowest answered in ${Math.max(...answers.map((a) => a.ms))} ms), ${refused.length} answered 503` +
        (refused.length ? ` over ${refused[refused.length - 1]!.at - refused[0]!.at} ms` : '') +
        `; ${counts.filter((c) => c > 1).length} of ${everyone.length} messages submitted twice`,
    );
  });
});
