import type { Redis } from 'ioredis';
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
 * primary is SIGKILLed while 3,000 SMS are being handed to the SMSC and sends keep arriving
 * from a few senders; the sentinels promote the replica and every connection of the app follows
 * it without a restart, the rate limits and failed-authentication throttles included.
 */

const SMS = '/api/v1/json/bulk/sms';
const BALANCE = '/api/v1/json/balance';
const METRICS_TOKEN = 'sentinel-metrics-token-0123456789';
const numbers = (n: number, base: number) =>
  Array.from({ length: n }, (_, i) => `26097${String(base + i).padStart(7, '0')}`);

/** The value of the one key matching `pattern` (null when none does). */
async function valueOf(r: Redis, pattern: string): Promise<string | null> {
  let cursor = '0';
  do {
    const [next, keys] = await r.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    if (keys.length) return r.get(keys[0]!);
    cursor = next;
  } while (cursor !== '0');
  return null;
}

const available = sentinelAvailable();
if (!available) console.warn('SKIPPED: redis-sentinel is not installed (Debian package redis-sentinel)');

describe.skipIf(!available)('Redis Sentinel failover during dispatch', () => {
  const REQUESTS = 10;
  const PER_REQUEST = 300;
  const CONCURRENCY = 2;
  const SLICE = 200;
  const SENDERS = 3;
  const RATE_LIMIT = 5;
  const PASSWORD_FAILURES = 3;
  let cluster: SentinelCluster;
  let smsc: SmppPeer;
  let t: TestApp;
  let tenant: Tenant;
  // Used only once the replica is promoted: a key with a rate limit of its own, and a key whose wrong passwords are counted.
  let limited: Tenant;
  let guarded: Tenant;

  beforeAll(async () => {
    cluster = await SentinelCluster.start({ downAfterMs: 1000 });
    // As SMSCs do, a receipt answered "retry later" (one that waited past the receiver's limit on a
    // loaded machine) is sent again.
    smsc = await startSmppPeer({
      autoReceipt: 'DELIVRD',
      receiptDelayMs: 20,
      redeliverReceiptsAfterMs: 2000,
    });
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
      AUTH_PASSWORD_FAILURES_PER_KEY: `${PASSWORD_FAILURES}/60`,
    });
    tenant = await createTenant(t, { balances: { sms: '100000' }, prices: { sms: '1' } });
    limited = await createTenant(t, { key: { rateLimit: { limit: RATE_LIMIT, windowSeconds: 60 } } });
    guarded = await createTenant(t);
  });
  afterAll(async () => {
    await t?.app.close();
    if (t && cluster)
      await dropLocalState(t.name, `redis://${await cluster.primary()}`).catch(() => undefined);
    await cluster?.destroy();
    await smsc?.close();
  });

  it('follows the promoted replica: every message delivered, repeats within one slice per worker, sends answered 200 or 503 only, limits and throttles counted on the new primary', async () => {
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
    const before = await t.http().get('/health/detailed').set('Authorization', `Bearer ${METRICS_TOKEN}`);
    expect(before.body.checks.message_queue.redis_primary).toBe(old);

    // Single sends all along from a few senders, through the failover: each answered 200 (kept) or 503 (retryable).
    const answers: Array<{ status: number; at: number; to: string; ms: number }> = [];
    let sending = true;
    const sender = async (s: number) => {
      for (let i = 0; sending; i++) {
        const to = `26098${s}${String(i).padStart(6, '0')}`;
        const started = Date.now();
        const res = await t
          .http()
          .post(SMS)
          .set('X-API-Key', tenant.key)
          .send({ from: 'ACME', to, message: 'live' });
        answers.push({ status: res.status, at: Date.now(), to, ms: Date.now() - started });
        await sleep(20);
      }
    };
    const senders = Promise.all(Array.from({ length: SENDERS }, (_, s) => sender(s)));

    await waitFor(async () => smsc.received.length >= 300, 30_000, 'dispatch under way');
    const killedAt = Date.now();
    await cluster.kill(Number(old.split(':')[1]));
    const promoted = await cluster.waitForPromotion(old);
    const promotedAt = Date.now();
    // The app's connections find the new primary (the health probe reads the queues' connection).
    await waitFor(
      async () => {
        const queues = (
          await t.http().get('/health/detailed').set('Authorization', `Bearer ${METRICS_TOKEN}`)
        ).body.checks?.message_queue;
        if (queues?.redis_primary === promoted) return true;
        throw new Error(`the probe says ${JSON.stringify(queues)}`); // named if the wait times out
      },
      20_000,
      `the queues on ${promoted}`,
    );
    const followedAt = Date.now();
    await sleep(1000);
    sending = false;
    await senders;
    // Sends were under way while the primary was gone (started before the queues followed, answered after the kill).
    expect(answers.filter((a) => a.at > killedAt && a.at - a.ms < followedAt).length).toBeGreaterThan(0);

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
    expect(Math.max(...counts)).toBeLessThanOrEqual(2);

    const metrics = await t.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
    const failovers = /^bulk_redis_failovers_total (\d+)/m.exec(metrics.text);
    expect(Number(failovers?.[1])).toBeGreaterThanOrEqual(1);

    // A key's rate limit and the wrong-password throttle hold on the new primary: a limit that
    // lost its Redis would let every request through (it fails open), and the throttle would
    // count in one process's memory only, so the counts are read on the promoted server too.
    const limitedAnswers: number[] = [];
    for (let i = 0; i <= RATE_LIMIT; i++)
      limitedAnswers.push((await t.http().get(BALANCE).set('X-API-Key', limited.key)).status);
    expect(limitedAnswers).toEqual([...Array<number>(RATE_LIMIT).fill(200), 429]);
    const passwordAnswers: number[] = [];
    for (let i = 0; i <= PASSWORD_FAILURES; i++)
      passwordAnswers.push(
        (
          await t
            .http()
            .post(BALANCE)
            .set('X-API-Key', guarded.key)
            .send({ username: guarded.username, password: `wrong-${i}` })
        ).status,
      );
    expect(passwordAnswers).toEqual([...Array<number>(PASSWORD_FAILURES).fill(401), 429]);
    expect(await cluster.primary()).toBe(promoted);
    const counted = await cluster.onPrimary(async (r) => ({
      hits: await valueOf(r, `*key:${limited.apiKey.id}:60000:key}:hits`),
      wrongPasswords: await valueOf(r, `*authfail:key:${guarded.apiKey.id}`),
    }));
    expect(counted).toEqual({ hits: String(RATE_LIMIT + 1), wrongPasswords: String(PASSWORD_FAILURES) });

    const refused = answers.filter((a) => a.status === 503);
    const resumed = smsc.received.find((r) => r.at > promotedAt)?.at;
    console.info(
      `Sentinel failover: promotion ${promotedAt - killedAt} ms after the kill, queues on the new primary ` +
        `${followedAt - killedAt} ms after it, dispatch resumed ${resumed ? resumed - killedAt : 'n/a'} ms after it; ` +
        `${answers.length} live sends from ${SENDERS} senders (slowest answered in ${Math.max(...answers.map((a) => a.ms))} ms), ${refused.length} answered 503` +
        (refused.length
          ? ` (from ${refused[0]!.at - killedAt} to ${refused[refused.length - 1]!.at - killedAt} ms after the kill)`
          : '') +
        `, the rest 200; ${counts.filter((c) => c > 1).length} of ${everyone.length} messages submitted twice ` +
        `(bound ${CONCURRENCY * SLICE}), none more; ${smsc.stats.receiptsRefused} receipt(s) answered "retry later" and resent; rate limit and wrong-password throttle counted on the new primary`,
    );
  }, 240_000);
});
