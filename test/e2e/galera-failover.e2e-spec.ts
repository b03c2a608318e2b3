import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { retryWriteConflicts } from '../../src/database/conflict-retry.js';
import { MAIN_MIGRATIONS } from '../../src/database/migrations/index.js';
import { haEvents } from '../../src/platform/ha/ha-events.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import {
  GaleraCluster,
  HaproxyFront,
  galeraAvailable,
  haproxyAvailable,
  startNodeChecks,
} from '../support/galera-cluster.js';
import { dropLocalState, freePort, killOnExit, sleep } from '../support/local-state.js';
import { startSmppPeer, type SmppPeer } from '../support/smpp-peer.js';
import { checkStore, describeProblems } from '../support/store-invariants.js';
import { startTestApp, testEnv, uniqueName, type TestApp } from '../support/test-app.js';
import { untilDelivered } from '../support/account-messages.js';
import { waitFor } from '../support/wait.js';

/**
 * A MariaDB Galera cluster of three nodes of the suite's own. First the processes of a
 * deployment start together on the empty cluster, each on another node, while one node stops
 * and drops out for a while; then the service runs behind HAProxy (one node taking writes, the
 * others backups) while the writing node is SIGKILLed mid-dispatch and later rejoins.
 */

const SMS = '/api/v1/json/bulk/sms';
const METRICS_TOKEN = 'galera-metrics-token-0123456789';
const available = galeraAvailable() && haproxyAvailable();
if (!available)
  console.warn('SKIPPED: Galera tests need galera-4, rsync, haproxy and the mysql user (Debian packages)');

interface Started {
  proc: ChildProcess;
  log: string;
  ready: () => Promise<boolean>;
}

function startProcess(
  script: string,
  env: Record<string, string>,
  ready: (port: number) => Promise<boolean>,
  port: number,
): Started {
  const proc = killOnExit(
    spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  const s: Started = { proc, log: '', ready: () => ready(port) };
  proc.stdout!.on('data', (d: Buffer) => (s.log += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (s.log += d.toString()));
  return s;
}

/** Times grouped where each comes within `gap` ms of the one before: "301-1200, 9100-16316". */
function spans(times: number[], gap = 1000): string {
  const out: Array<[number, number]> = [];
  for (const at of times) {
    const last = out[out.length - 1];
    if (last && at - last[1] <= gap) last[1] = at;
    else out.push([at, at]);
  }
  return out.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(', ');
}

/** What every process that died at start printed last (the first to fail is not always the first listed). */
function deaths(processes: Started[]): string {
  return processes
    .map((p, k) => (p.proc.exitCode === null ? '' : `process ${k} died at start:\n${p.log.slice(-2000)}`))
    .filter(Boolean)
    .join('\n');
}

const answers200 = (url: string) => async () => (await fetch(url).catch(() => undefined))?.status === 200;

describe.skipIf(!available)('a MariaDB Galera cluster', () => {
  const name = uniqueName();
  let cluster: GaleraCluster;
  let checks: Awaited<ReturnType<typeof startNodeChecks>>;
  let proxy: HaproxyFront;

  beforeAll(async () => {
    cluster = await GaleraCluster.start();
    checks = await startNodeChecks(cluster);
    proxy = await HaproxyFront.start(cluster, checks.ports);
  }, 300_000);
  afterAll(async () => {
    await proxy?.close();
    await checks?.close();
    await cluster?.destroy();
    await dropLocalState(name).catch(() => undefined);
  });

  it('two APIs and two workers started at once on an empty cluster, each on another node, one node frozen for 8 s mid-start: migrations applied once, all healthy', async () => {
    const nodeOf = [0, 1, 2, 0];
    const processes: Started[] = [];
    for (const [k, node] of nodeOf.entries()) {
      const port = await freePort();
      const env = testEnv(name, {
        DATABASE_URL: cluster.url(node, name),
        LOG_LEVEL: 'warn',
        STARTUP_WAIT_SECONDS: '60',
        ...(k < 2 ? { PORT: String(port), RUN_WORKERS: 'false' } : { METRICS_PORT: String(port) }),
      });
      processes.push(
        startProcess(
          k < 2 ? 'dist/main.js' : 'dist/worker.js',
          env,
          (p) => answers200(`http://127.0.0.1:${p}/${k < 2 ? 'health/ready' : 'health/live'}`)(),
          port,
        ),
      );
    }
    // Mid-start, the first node stops for longer than the cluster waits for a silent member: the
    // others go on without it, its two processes meet errors (or a lock held by one of them
    // stands), and it comes back and rejoins. Where in the start-up this lands varies by run;
    // the outcome must not.
    await sleep(2500);
    const frozen = cluster.nodes[0]!.proc!;
    frozen.kill('SIGSTOP');
    await sleep(8000);
    frozen.kill('SIGCONT');
    try {
      await waitFor(
        async () => {
          if (processes.some((p) => p.proc.exitCode !== null)) throw new Error(deaths(processes));
          return (await Promise.all(processes.map((p) => p.ready()))).every(Boolean);
        },
        180_000,
        'all four processes healthy',
      ).catch((err: Error) => {
        throw processes.some((p) => p.proc.exitCode !== null) ? new Error(deaths(processes)) : err;
      });
      const expected = MAIN_MIGRATIONS.map((M) => (new M() as { name?: string }).name ?? M.name).sort();
      for (const node of [0, 1, 2]) {
        const conn = await cluster.connect(node, name);
        try {
          const [rows] = await conn.query('SELECT name FROM migrations');
          expect((rows as Array<{ name: string }>).map((r) => r.name).sort(), `node${node + 1}`).toEqual(
            expected,
          );
          const [locks] = await conn.query('SELECT * FROM migration_lock');
          expect(locks, `node${node + 1}`).toEqual([]);
        } finally {
          await conn.end();
        }
      }
      expect(processes.filter((p) => p.proc.exitCode !== null)).toEqual([]);
    } finally {
      for (const p of processes) {
        if (p.proc.exitCode === null) {
          const exited = new Promise((r) => p.proc.once('exit', r));
          p.proc.kill('SIGTERM');
          await Promise.race([exited, sleep(20_000)]);
          if (p.proc.exitCode === null) p.proc.kill('SIGKILL');
        }
      }
    }
  }, 300_000);

  describe('behind HAProxy, the writing node SIGKILLed mid-dispatch and rejoined', () => {
    const SENDERS = 4;
    const REQUESTS_PER_SENDER = 7;
    const RECIPIENTS = 200;
    const PRICE = 0.5;
    // The key's daily spend limit has room for 25 of the 28 requests (5,000 SMS): the last to
    // arrive are refused 402, whether or not they meet the failover.
    const ACCEPTED = 25;
    const DAILY_LIMIT = ACCEPTED * RECIPIENTS * PRICE;
    const CONCURRENCY = 2;
    const SLICE = 200;
    let smsc: SmppPeer;
    let t: TestApp;
    let tenant: Tenant;

    beforeAll(async () => {
      // As SMSCs do, a receipt refused while the database was away is sent again.
      smsc = await startSmppPeer({
        autoReceipt: 'DELIVRD',
        receiptDelayMs: 20,
        redeliverReceiptsAfterMs: 2000,
      });
      t = await startTestApp(
        {
          DATABASE_URL: proxy.url(name),
          RUN_WORKERS: 'true',
          SMS_TRANSPORT: 'smpp',
          SMPP_URL: smsc.url,
          SMPP_TPS: '300',
          SMS_CONCURRENCY: String(CONCURRENCY),
          SWEEP_INTERVAL_MS: '500',
          SWEEP_STRANDED_AFTER_MS: '3000',
          SCHEDULE_POLL_MS: '200',
          METRICS_TOKEN,
        },
        name,
      );
      tenant = await createTenant(t, {
        balances: { sms: '100000' },
        prices: { sms: String(PRICE) },
        key: { dailyLimit: DAILY_LIMIT.toFixed(2) },
      });
    }, 180_000);
    afterAll(async () => {
      await t?.app.close();
      await smsc?.close();
    });

    it('every 200 stored and charged once, spend limit exact, balance equal to the ledger on every node, every message delivered, none before its send_at, repeats within one slice per worker', async () => {
      const answers: Array<{
        status: number;
        at: number;
        ref?: string;
        code?: string;
        to: string[];
        sendAt?: number;
      }> = [];
      let n = 0;
      const sender = async (s: number) => {
        for (let r = 0; r < REQUESTS_PER_SENDER; r++) {
          const to = Array.from({ length: RECIPIENTS }, () => `26097${String(n++).padStart(7, '0')}`);
          // Two requests of each sender are scheduled ahead, to fall due during the failover and
          // after it: released by the due scan on whichever node takes the writes then.
          const sendAt = r === 2 ? Date.now() + 4000 : r === 5 ? Date.now() + 12_000 : undefined;
          const scheduled = sendAt ? { send_at: new Date(sendAt).toISOString() } : {};
          // A 503 at the kill can come after the COMMIT took effect (its acknowledgement lost with the
          // node): a client that retries names its request, so the retry answers the stored one.
          const reference = { user_reference_id: `${name}-s${s}-r${r}` };
          for (;;) {
            const res = await t
              .http()
              .post(SMS)
              .set('X-API-Key', tenant.key)
              .send({ from: 'ACME', to, message: `s${s} r${r}`, ...scheduled, ...reference });
            answers.push({
              status: res.status,
              at: Date.now(),
              ref: res.body?.api_reference,
              code: res.body?.error?.code,
              to,
              sendAt,
            });
            if (res.status !== 503) break;
            await sleep(200); // what a client does with 503 SERVICE_UNAVAILABLE: tries again
          }
          // A client's pause between requests: most of them are still to come at the kill.
          await sleep(250);
        }
      };
      const senders = Promise.all(Array.from({ length: SENDERS }, (_, s) => sender(s)));

      await waitFor(
        async () => smsc.received.length >= 200 && answers.filter((a) => a.status === 200).length >= 8,
        60_000,
        'dispatch under way',
      );
      const killedAt = Date.now();
      // What HAProxy's checks see of each node, so each burst of 503s can be told apart.
      const checkChanges: string[] = [];
      let watching = true;
      const watcher = (async () => {
        const last = [true, true, true];
        while (watching) {
          const now = await Promise.all([0, 1, 2].map((i) => cluster.serving(i)));
          now.forEach((up, i) => {
            if (up !== last[i])
              checkChanges.push(`node${i + 1} ${up ? 'up' : 'down'} at ${Date.now() - killedAt}`);
            last[i] = up;
          });
          await sleep(200);
        }
      })();
      let rejoinStarted: number, rejoinedAt: number;
      try {
        await cluster.kill(0);
        await sleep(8000);
        rejoinStarted = Date.now();
        await cluster.rejoin(0);
        rejoinedAt = Date.now();
        await senders;
      } finally {
        watching = false;
        await watcher;
      }

      const ok = answers.filter((a) => a.status === 200);
      const overLimit = answers.filter((a) => a.status === 402);
      expect(answers.filter((a) => ![200, 402, 503].includes(a.status))).toEqual([]);
      // Sends were made across the failover, not all before it.
      expect(answers.filter((a) => a.at > killedAt).length).toBeGreaterThan(0);
      expect(ok).toHaveLength(ACCEPTED);
      expect(overLimit.map((a) => a.code)).toEqual(
        Array<string>(SENDERS * REQUESTS_PER_SENDER - ACCEPTED).fill('SPEND_LIMIT_EXCEEDED'),
      );
      const total = ok.length * RECIPIENTS;
      const refs = ok.map((a) => a.ref!);
      await untilDelivered(
        t,
        tenant.account.id,
        total,
        () => smsc.received.length + smsc.stats.receiptsAcked,
      );

      // Each 200 stored once with all its messages, and charged once; on every node alike.
      for (const node of [0, 1, 2]) {
        const conn = await cluster.connect(node, name);
        try {
          const [req] = await conn.query(
            'SELECT r.id, COUNT(m.id) AS n FROM send_requests r LEFT JOIN messages m ON m.send_request_id = r.id WHERE r.account_id = ? GROUP BY r.id',
            [tenant.account.id],
          );
          const stored = new Map(
            (req as Array<{ id: string; n: string }>).map((r) => [String(r.id), Number(r.n)]),
          );
          expect(stored.size, `node${node + 1}: requests stored`).toBe(refs.length);
          expect(
            refs.filter((ref) => stored.get(ref) !== RECIPIENTS),
            `node${node + 1}`,
          ).toEqual([]);
          // Every request charged exactly once, balance equal to its ledger, nothing half-stored (all accounts).
          expect(describeProblems(await checkStore(conn)), `node${node + 1}`).toEqual([]);
          const [[channel]] = (await conn.query(
            "SELECT balance FROM account_channels WHERE account_id = ? AND channel = 'sms'",
            [tenant.account.id],
          )) as unknown as [[{ balance: string }]];
          expect(Number(channel.balance), `node${node + 1}`).toBe(100000 - total * PRICE);
          // The key's spend of the day is what was charged: no refused or retried request counted.
          const [[spend]] = (await conn.query(
            "SELECT COALESCE(SUM(spent), 0) AS spent FROM daily_spend WHERE scope = 'key' AND owner_id = ?",
            [tenant.apiKey.id],
          )) as unknown as [[{ spent: string }]];
          const [[charged]] = (await conn.query(
            "SELECT -COALESCE(SUM(amount), 0) AS charged FROM ledger_entries WHERE account_id = ? AND kind = 'charge'",
            [tenant.account.id],
          )) as unknown as [[{ charged: string }]];
          expect([Number(spend.spent), Number(charged.charged)], `node${node + 1}`).toEqual([
            DAILY_LIMIT,
            DAILY_LIMIT,
          ]);
        } finally {
          await conn.end();
        }
      }
      const counts = ok.flatMap((a) => a.to).map((to) => smsc.countByDestination(to));
      expect(counts.filter((c) => c === 0)).toEqual([]);
      expect(counts.filter((c) => c > 1).length).toBeLessThanOrEqual(CONCURRENCY * SLICE);
      expect(Math.max(...counts)).toBeLessThanOrEqual(2);
      // No scheduled message handed to the SMSC before its send_at, whichever node released it.
      const firstAt = new Map<string, number>();
      for (const r of smsc.received) if (!firstAt.has(r.destination)) firstAt.set(r.destination, r.at);
      const scheduled = ok.filter((a) => a.sendAt !== undefined);
      expect(scheduled.flatMap((a) => a.to.filter((to) => firstAt.get(to)! < a.sendAt!))).toEqual([]);

      const metrics = await t.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
      expect(metrics.text).toMatch(/^bulk_db_transaction_retries_total\{cause="certification"\} \d+/m);
      const refused = answers.filter((a) => a.status === 503);
      const resumed = answers.find((a) => a.status === 200 && a.at > killedAt + 100)?.at;
      const due = scheduled.map((a) => a.sendAt! - killedAt).sort((a, b) => a - b);
      console.info(
        `Galera failover: ${total} SMS in ${ok.length} requests of ${RECIPIENTS} from ${SENDERS} senders, ` +
          `${overLimit.length} refused 402 at the spend limit (spent = charged = ${DAILY_LIMIT}); ` +
          `${answers.length} answers, ${answers.filter((a) => a.at > killedAt).length} after the kill, ${refused.length} answered 503` +
          (refused.length ? ` at ${spans(refused.map((a) => a.at - killedAt))} ms after the kill` : '') +
          `; first 200 after the kill at ${resumed ? resumed - killedAt : 'n/a'} ms; ` +
          `${scheduled.length} scheduled requests due ${due[0]} to ${due[due.length - 1]} ms after the kill; ` +
          `rejoin (recovery + IST + sync) ${rejoinStarted - killedAt} to ${rejoinedAt - killedAt} ms after the kill; ` +
          `checks: ${checkChanges.join(', ')}; ` +
          `${counts.filter((c) => c > 1).length} of ${total} messages submitted twice (bound ${CONCURRENCY * SLICE}); ` +
          `retries: ${/bulk_db_transaction_retries_total\{cause="certification"\} (\d+)/.exec(metrics.text)?.[1]} certification, ` +
          `${/bulk_db_transaction_retries_total\{cause="lock"\} (\d+)/.exec(metrics.text)?.[1]} lock`,
      );
    }, 400_000);
  });

  it('a transaction that fails certification at COMMIT (another node committed the same row first) runs again and is counted, not failed', async () => {
    const ds = retryWriteConflicts(
      await new DataSource({
        type: 'mysql',
        host: '127.0.0.1',
        port: cluster.nodes[1]!.port,
        username: 'root',
        database: name,
        poolSize: 2,
      }).initialize(),
    );
    const other = await cluster.connect(2, name);
    try {
      await other.query('CREATE TABLE cert_probe (id INT PRIMARY KEY, v INT NOT NULL)');
      await other.query('INSERT INTO cert_probe VALUES (1, 0)');
      await waitFor(
        async () => ((await ds.query('SELECT v FROM cert_probe')) as unknown[]).length === 1,
        10_000,
        'the row on node2',
      );
      const before = haEvents.certificationRetries;
      let attempts = 0;
      await ds.transaction(async (em) => {
        attempts++;
        await em.query('UPDATE cert_probe SET v = v + 1 WHERE id = 1');
        // Node3 changes the same row and commits first: node2's transaction cannot commit after it.
        if (attempts === 1) await other.query('UPDATE cert_probe SET v = v + 100 WHERE id = 1');
      });
      expect(attempts).toBe(2);
      expect(haEvents.certificationRetries - before).toBe(1);
      const [rows] = await other.query('SELECT v FROM cert_probe WHERE id = 1');
      await waitFor(
        async () => {
          const [r] = await other.query('SELECT v FROM cert_probe WHERE id = 1');
          return (r as Array<{ v: number }>)[0]!.v === 101;
        },
        10_000,
        'both changes on node3',
      ).catch(() => {
        throw new Error(`v is ${JSON.stringify(rows)}, not 101`);
      });
    } finally {
      await other.end();
      await ds.destroy();
    }
  });
});
