/**
 * npm run soak [-- --minutes N | --quick] [-- --rps N] [-- --keep] [-- --redis-loss SECONDS]
 *
 * A concurrency soak on loopback: two API processes (RUN_WORKERS=false) and two worker
 * processes from dist/, on databases and a queue prefix of their own (MySQL and Redis at the
 * default addresses), an in-process SMPP peer with DELIVRD receipts and an in-process callback
 * listener. A steady mix of requests across both APIs (load.ts) with key rotations through the
 * CLI; then a bounded drain and the checks of checks.ts. Prints a summary, writes it to
 * soak/results/latest.json and exits 1 when an invariant fails.
 *
 * --redis-loss SECONDS runs the processes on a Redis of the soak's own, without persistence,
 * kills it a third of the way into the load and starts it again, empty, SECONDS later: every
 * accepted message must still reach the SMSC exactly once, and every callback event its target.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { createPool } from 'mysql2/promise';
import { verifyCallback } from '../src/modules/callbacks/signature.js';
import { startHttpPeer } from '../test/support/http-peer.js';
import { RedisInstance } from '../test/support/redis-instance.js';
import { dropLocalState } from '../test/support/local-state.js';
import { startSmppPeer } from '../test/support/smpp-peer.js';
import {
  expectedCallbacks,
  ledgerTable,
  messageStates,
  runChecks,
  waitingMessages,
  type CallbackLog,
} from './checks.js';
import { Load, LoadStats, type SoakTenant } from './load.js';
import { MemorySampler } from './memory.js';
import { cli, freePort, sleep, startProc, stopProc, waitHttp, type Proc } from './procs.js';
import { printSummary, type Summary } from './summary.js';

const argv = process.argv.slice(2);
const opt = (flag: string) => {
  const i = argv.indexOf(flag);
  return i >= 0 ? argv[i + 1] : undefined;
};
const quick = argv.includes('--quick');
const minutes = quick ? 1 : Number(opt('--minutes') ?? 5);
const rps = Number(opt('--rps') ?? 30);
const keep = argv.includes('--keep');
const redisLossSeconds = Number(opt('--redis-loss') ?? 0);
if (!(minutes > 0) || !(rps > 0 && rps <= 200) || !(redisLossSeconds >= 0)) {
  console.error(
    'usage: npm run soak [-- --minutes N | --quick] [--rps 1-200] [--keep] [--redis-loss SECONDS]',
  );
  process.exit(2);
}
const DRAIN_MS = 120_000;
const ROTATE_EVERY_MS = quick ? 12_000 : 30_000;
const name = `soak_${process.pid}`;
const mysqlUrl = `mysql://root@127.0.0.1:3306/${name}`;
const RESULTS = 'soak/results';
const procs: Proc[] = [];

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

async function createTenant(tag: string, balances: Record<string, string>): Promise<SoakTenant> {
  const env = { DATABASE_URL: mysqlUrl, LOG_LEVEL: 'error' };
  const username = `${tag}_${process.pid}`;
  const password = `soak-${tag}-password-1`;
  await cli(env, 'accounts', 'create', '--username', username, '--password', password);
  for (const [channel, amount] of Object.entries(balances))
    await cli(env, 'accounts', 'credit', '--username', username, '--channel', channel, '--amount', amount);
  const key = await cli(env, 'keys', 'create', '--username', username, '--name', `${tag} soak`);
  return { tag, username, password, keyId: String(key.id), key: key.key, retired: new Set() };
}

async function dropState(): Promise<void> {
  await dropLocalState(name);
}

async function main(): Promise<number> {
  const started = Date.now();
  mkdirSync(RESULTS, { recursive: true });
  const smsc = await startSmppPeer({ autoReceipt: 'DELIVRD', receiptDelayMs: 100 });
  const secrets = new Map<string, string>();
  const callbacks: CallbackLog = { delivered: new Map(), attempts: 0, refusedOnPurpose: 0, badSignatures: 0 };
  const hooks = await startHttpPeer((req) => {
    hooks.requests.length = 0; // the peer keeps every request; the soak only needs the counts
    callbacks.attempts++;
    // One answer in twenty is a 503, so retries are part of the soak.
    if (Math.random() < 0.05) {
      callbacks.refusedOnPurpose++;
      return { status: 503 };
    }
    const secret = secrets.get(req.path.split('/').pop() ?? '');
    const ok =
      secret &&
      verifyCallback(
        secret,
        String(req.headers['x-signature-timestamp']),
        String(req.headers['x-signature']),
        req.body,
      );
    if (!ok) callbacks.badSignatures++;
    const id = (req.json as { event_id?: string } | undefined)?.event_id ?? '?';
    callbacks.delivered.set(id, (callbacks.delivered.get(id) ?? 0) + 1);
    return { status: 200 };
  });

  const redis = redisLossSeconds > 0 ? await RedisInstance.start() : undefined;
  const ports = [await freePort(), await freePort()];
  const apis = ports.map((p) => `http://127.0.0.1:${p}`);
  const common = {
    DATABASE_URL: mysqlUrl,
    QUEUE_PREFIX: name,
    APP_ENV: 'soak',
    SERVER_SECRET: `soak-only-server-secret-of-this-run-${name}`,
    LOG_LEVEL: 'warn',
    LOG_PRETTY: 'false',
    RATE_LIMIT_DEFAULT: '1000000/1',
    CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
    CALLBACK_BACKOFF_BASE_MS: '200',
    SMS_TRANSPORT: 'smpp',
    SMPP_URL: smsc.url,
    SANDBOX_DELIVERY_DELAY_MS: '300',
    DB_POOL_SIZE: '10',
    // A lost queue is noticed after a quiet minute by default; the soak's drain is shorter.
    ...(redis ? { REDIS_URL: redis.url, SWEEP_STRANDED_AFTER_MS: '15000' } : {}),
  };
  const logs = `${RESULTS}/logs`;
  const pool = createPool({
    uri: mysqlUrl,
    connectionLimit: 4,
    timezone: 'Z',
    supportBigNumbers: true,
    bigNumberStrings: true,
  });
  let exit = 1;
  try {
    console.log(`soak ${name}: ${minutes} min at ${rps} req/s; logs in ${logs}/`);
    procs.push(
      startProc('api1', 'dist/main.js', { ...common, PORT: String(ports[0]), RUN_WORKERS: 'false' }, logs),
    );
    await waitHttp(`${apis[0]}/health/ready`, 90_000, procs[0]); // the first process creates the databases and migrates
    procs.push(
      startProc('api2', 'dist/main.js', { ...common, PORT: String(ports[1]), RUN_WORKERS: 'false' }, logs),
    );
    const metricsPorts = [await freePort(), await freePort()];
    metricsPorts.forEach((p, i) =>
      procs.push(startProc(`worker${i + 1}`, 'dist/worker.js', { ...common, METRICS_PORT: String(p) }, logs)),
    );
    await waitHttp(`${apis[1]}/health/ready`, 90_000, procs[1]);
    await Promise.all(
      metricsPorts.map((p, i) => waitHttp(`http://127.0.0.1:${p}/health/live`, 90_000, procs[2 + i])),
    );

    const big = { sms: '1000000', email: '1000000', chat: '1000000' };
    const [alpha, beta, poor] = await Promise.all([
      createTenant('alpha', big),
      createTenant('beta', big),
      createTenant('poor', { sms: '30' }),
    ]);
    const accounts = (await pool.query('SELECT username, callback_secret FROM accounts'))[0] as Array<{
      username: string;
      callback_secret: string;
    }>;
    for (const a of accounts) secrets.set(a.username.replace(/_\d+$/, ''), a.callback_secret);
    console.log(
      `ready in ${Math.round((Date.now() - started) / 1000)} s: 2 APIs, 2 workers, accounts ${alpha.username} ${beta.username} ${poor.username}`,
    );

    const stats = new LoadStats();
    const load = new Load(apis, [alpha, beta], poor, hooks.url, stats);
    const loadStarted = Date.now();
    stats.warmUpUntil = loadStarted + 15_000;
    const until = loadStarted + minutes * 60_000;
    const cpuBefore = procs.map((p) => cpuSeconds(p.child.pid));
    const memory = new MemorySampler(procs.map((p) => ({ name: p.name, pid: p.child.pid })));
    memory.start();
    const selfBefore = process.cpuUsage();

    // Key rotations through the CLI, alternating the two rich accounts; clients switch to the new key at once.
    let rotations = 0;
    const rotationErrors: string[] = [];
    const rotating = (async () => {
      let i = 0;
      while (Date.now() + ROTATE_EVERY_MS < until) {
        await sleep(ROTATE_EVERY_MS);
        const tenant = [alpha, beta][i++ % 2];
        // The old key stops working when the CLI commits, before it prints the new one: from now on
        // a 401 for it is expected.
        const old = tenant.key;
        tenant.retired.add(old);
        try {
          const r = await cli({ DATABASE_URL: mysqlUrl, LOG_LEVEL: 'error' }, 'keys', 'rotate', tenant.keyId);
          tenant.key = r.key;
          rotations++;
        } catch (err) {
          tenant.retired.delete(old);
          rotationErrors.push((err as Error).message);
        }
      }
    })();
    const progress = setInterval(
      () => {
        const s = Math.round((Date.now() - loadStarted) / 1000);
        const w = stats.window.sort((a, b) => a - b);
        stats.window = [];
        const p99 = w.length ? Math.round(w[Math.min(w.length - 1, Math.ceil(w.length * 0.99) - 1)]) : 0;
        console.log(
          `  ${s} s: ${stats.requests} requests (${Math.round(stats.requests / Math.max(1, s))}/s), window p99 ${p99} ms max ${Math.round(w.at(-1) ?? 0)} ms; ` +
            `${stats.unexpectedCount} unexpected, ${stats.networkErrors} without answer, ${rotations} rotations, SMSC ${smsc.received.length}, callbacks ${callbacks.delivered.size}`,
        );
      },
      quick ? 10_000 : 15_000,
    );
    const redisLoss = (async () => {
      if (!redis) return;
      await sleep((until - loadStarted) / 3);
      await redis.stop();
      console.log(`  Redis killed; back, empty, in ${redisLossSeconds} s`);
      await sleep(redisLossSeconds * 1000);
      await redis.start();
      console.log('  Redis back (empty)');
    })();
    await load.run(until, rps);
    memory.stop();
    await redisLoss;
    clearInterval(progress);
    await rotating;
    const loadSeconds = (Date.now() - loadStarted) / 1000;
    const cpuLoad = procs.map((p, i) => ({
      process: p.name,
      cpu_percent_of_one_core: Math.round(((cpuSeconds(p.child.pid) - cpuBefore[i]) / loadSeconds) * 100),
    }));
    const self = process.cpuUsage(selfBefore);
    cpuLoad.push({
      process: 'harness',
      cpu_percent_of_one_core: Math.round(((self.user + self.system) / 1e6 / loadSeconds) * 100),
    });

    // Drain: every accepted message SENT or final, the SMSC has them all, and every callback event answered 2xx.
    console.log(
      `load done: ${stats.requests} requests in ${Math.round(loadSeconds)} s; draining (at most ${DRAIN_MS / 1000} s)…`,
    );
    const drainStarted = Date.now();
    const [{ n: smsAccepted }] = (
      await pool.query("SELECT COUNT(*) AS n FROM messages WHERE channel = 'sms' AND units > 0")
    )[0] as Array<{ n: string }>;
    while (Date.now() - drainStarted < DRAIN_MS) {
      const waiting = await waitingMessages(pool);
      const expected = await expectedCallbacks(pool);
      if (
        waiting === 0 &&
        smsc.received.length >= Number(smsAccepted) &&
        callbacks.delivered.size >= expected
      ) {
        await sleep(2000); // late duplicates or events would show now
        if ((await expectedCallbacks(pool)) === callbacks.delivered.size) break;
      }
      await sleep(500);
    }
    const drainSeconds = (Date.now() - drainStarted) / 1000;

    const crashed = procs
      .filter((p) => p.exited && !p.exited.expected)
      .map((p) => `${p.name} (${p.exited!.code ?? p.exited!.signal})`);
    const checks = await runChecks(pool, stats, smsc, callbacks, crashed);
    checks.push(memory.check());
    checks.push({
      check: 'key rotations through the CLI',
      value: rotations,
      expected: '> 0, no errors',
      ok: rotations > 0 && rotationErrors.length === 0,
    });
    const summary: Summary = {
      at: new Date().toISOString(),
      machine: {
        cores: cpus().length,
        cpu: cpus()[0]?.model,
        memory_gb: Math.round(totalmem() / 2 ** 30),
        node: process.version,
      },
      options: { minutes, rps, quick, redis_loss_seconds: redisLossSeconds },
      seconds: {
        load: Math.round(loadSeconds),
        drain: Math.round(drainSeconds),
        total: Math.round((Date.now() - started) / 1000),
      },
      stats,
      rotations,
      rotationErrors,
      callbacks: {
        attempts: callbacks.attempts,
        refused_on_purpose: callbacks.refusedOnPurpose,
        events_delivered: callbacks.delivered.size,
        expected: await expectedCallbacks(pool),
      },
      smsc: { submits: smsc.received.length, binds: smsc.stats.binds },
      messages: await messageStates(pool),
      ledger: await ledgerTable(pool),
      cpu: cpuLoad,
      memory: memory.report(),
      checks,
    };
    writeFileSync(`${RESULTS}/latest.json`, JSON.stringify(printSummary(summary), null, 2));
    console.log(`\nwritten to ${RESULTS}/latest.json`);
    exit = checks.every((c) => c.ok) ? 0 : 1;
    console.log(
      exit === 0
        ? 'SOAK PASSED: every invariant holds'
        : `SOAK FAILED: ${checks
            .filter((c) => !c.ok)
            .map((c) => c.check)
            .join('; ')}`,
    );
  } finally {
    await Promise.all(procs.map((p) => stopProc(p)));
    await pool.end().catch(() => undefined);
    await smsc.close();
    await hooks.close();
    await redis?.stop();
    if (keep)
      console.log(`kept databases ${name}, ${name}_log, ${name}_notification and Redis prefix ${name}`);
    else await dropState().catch((err: Error) => console.warn(`cleanup: ${err.message}`));
  }
  return exit;
}

process.once('SIGINT', () => {
  console.log('\ninterrupted: stopping the processes and dropping the soak databases');
  void Promise.all(procs.map((p) => stopProc(p)))
    .then(() => (keep ? undefined : dropState()))
    .finally(() => process.exit(130));
});

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
