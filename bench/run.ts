/**
 * npm run bench [-- --quick] [--only B1,B2,...] [--cpu-prof <dir>]
 * Starts everything it needs on loopback (the API, a worker, a baseline app, an SMPP peer),
 * measures B1–B11, S1–S2 and T1 against baselines measured in the same run, prints a table of medians and
 * writes it to bench/results/latest.json (a `--quick` or `--only` run to bench/results/partial.json,
 * which git ignores, so the committed full figures stay). `--only` runs the named benches alone (B1: the single
 * send against the baseline, its CPU per send and the API's RSS under it; B1+ adds the runs with
 * spend limits and a test key; B2 includes the 100,000-recipient request unless `--quick`, the
 * run with a suppression list, which B2S names alone, and the run with a 50-country allow list,
 * which B2C names alone; B3 runs Kannel against the same SMPP peer where Debian's kannel is
 * installed, then one worker, then two, then its webhook pair, which B3W names alone; V1 a
 * verification's start and check against a send and a balance read).
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { createConnection } from 'mysql2/promise';
import { v7 as uuidv7 } from 'uuid';
import { startSmppPeer } from '../test/support/smpp-peer.js';
import { benchFairness } from './fairness.js';
import { benchTestTraffic } from './test-traffic.js';
import { benchBigBodies } from './big-bodies.js';
import { benchErasure } from './erasure.js';
import { benchPersonalisation } from './personalisation.js';
import { benchSuppressionList } from './suppression.js';
import { benchCountryList } from './countries.js';
import { benchVerify } from './verify.js';
import { benchScheduling } from './scheduling.js';
import { benchFallback } from './fallback.js';
import { benchSearch } from './search.js';
import { benchRouting } from './routing.js';
import { benchDispatch } from './dispatch.js';
import { benchCli } from './cli.js';
import { benchRetention } from './retention.js';
import { benchPartitions } from './partitions.js';
import { benchSmppServer } from './smpp-server.js';
import { benchLinks } from './links.js';
import { LATEST, writeBenchDocs } from './docs.js';
import {
  cliJson,
  cpuMs,
  freePort,
  median,
  pidOf,
  RssSampler,
  sleep,
  startNode,
  stop,
  waitHttp,
  type BenchRow,
  dropBenchState,
} from './lib.js';

const quick = process.argv.includes('--quick');
const onlyArg = process.argv.indexOf('--only');
const only =
  onlyArg >= 0
    ? new Set((process.argv[onlyArg + 1] ?? '').toUpperCase().split(',').filter(Boolean))
    : undefined;
const profileArg = process.argv.indexOf('--cpu-prof');
const profileDir = profileArg >= 0 ? process.argv[profileArg + 1] : undefined;
/** Node's flags for a process whose CPU profile `--cpu-prof <dir>` asks for, as `<dir>/<name>.cpuprofile`. */
const cpuProfile = (name: string) =>
  profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
/** Where the API and the baseline app write what count-probe.ts counted. */
const countFile = (name: string) => join(tmpdir(), `bench-count-${name}-${process.pid}.json`);
/** Node's flags that load count-probe.ts (idle until signalled). */
const countProbe = ['--import', pathToFileURL(join(import.meta.dirname, 'count-probe.js')).href];
/** Requests per counting window: enough that the trailing work of the window's edges is small. */
const COUNT_REQUESTS = quick ? 4000 : 10_000;
/** Whether a bench is part of this run: all of them, or those named after `--only`. */
const wants = (id: string) => !only || only.has(id);
/** The benches run on the shared API; the others (B5 to B11, S, F, T1, E-SMPP, L1, CLI) start their own. */
const SHARED_API_BENCHES = ['B1', 'B1+', 'B2', 'B2S', 'B2C', 'B3', 'B3W', 'B16', 'V1'];
const RUNS = 3;
const B1_SECONDS = quick ? 3 : 10;
const B2_RUNS = quick ? 3 : 5;
const B3_PRELOAD = quick ? 10_000 : 30_000;
const STEADY_SECONDS = quick ? 3 : 10;
const name = `bench_${process.pid}`;
const mysqlUrl = `mysql://root@127.0.0.1:3306/${name}`;

type Row = BenchRow;
const rows: Row[] = [];
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

function record(r: Omit<Row, 'ratio'> & { ratio?: number }) {
  rows.push({
    ...r,
    value: round(r.value),
    baseline: r.baseline === undefined ? undefined : round(r.baseline),
    ratio: r.ratio === undefined ? undefined : round(r.ratio, 2),
  });
}

const cli = (...args: string[]): any => cliJson({ DATABASE_URL: mysqlUrl }, ...args);

const numbers = (n: number, base: number) =>
  Array.from({ length: n }, (_, i) => String(260_970_000_000 + base + i));

/** 50 connections POSTing `body` as JSON to `url`, for `until`'s seconds or number of requests. */
function post50(
  url: string,
  body: object,
  headers: Record<string, string>,
  until: { duration: number } | { amount: number },
) {
  return autocannon({
    url,
    method: 'POST',
    connections: 50,
    ...until,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** MariaDB and Redis on this machine, if they run here: their CPU per answer is reported beside the API's. */
const peerPids = [pidOf('mariadbd') ?? pidOf('mysqld'), pidOf('redis-server')];

/**
 * `pid`: the process serving `url`, whose CPU time per 2xx answer the result reports, with the
 * share of a core it used and the CPU per answer of MariaDB, Redis and this process (the load
 * generator) over the same seconds.
 */
async function load(
  url: string,
  body: object,
  headers: Record<string, string>,
  seconds: number,
  pid?: number,
) {
  const cpu0 = pid === undefined ? 0 : cpuMs(pid);
  const peers0 = peerPids.map((p) => (p === undefined ? NaN : cpuMs(p)));
  const own0 = process.cpuUsage();
  const r = await post50(url, body, headers, { duration: seconds });
  const cpu = pid === undefined ? NaN : cpuMs(pid) - cpu0;
  const own = process.cpuUsage(own0);
  const answers = Math.max(1, r['2xx']);
  const [mariadbCpu, redisCpu] = peerPids.map((p, i) => (p === undefined ? NaN : cpuMs(p) - peers0[i]));
  return {
    rps: r.requests.average,
    cpuPerSend: cpu / answers,
    /** Share of one core the serving process used while loaded (all its threads). */
    busy: cpu / (seconds * 1000),
    mariadbPerSend: mariadbCpu / answers,
    redisPerSend: redisCpu / answers,
    loadGeneratorPerSend: (own.user + own.system) / 1000 / answers,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
  };
}

/**
 * Bytes allocated, promises made and bytes that outlive a young collection per 2xx answer by
 * the process serving `url`, each counted over COUNT_REQUESTS requests by count-probe.ts (started and stopped by signals; the pauses let
 * a window's trailing work, such as the request-log rows written every 500 ms, fall inside it).
 */
async function countPerAnswer(
  proc: ChildProcess,
  file: string,
  url: string,
  body: object,
  headers: Record<string, string>,
): Promise<{ kbPerAnswer: number; promisesPerAnswer: number; kbSurvivedPerAnswer: number }> {
  const window = async () => {
    const r = await post50(url, body, headers, { amount: COUNT_REQUESTS });
    await sleep(700);
    return Math.max(1, r['2xx']);
  };
  rmSync(file, { force: true });
  proc.kill('SIGWINCH');
  await sleep(200);
  const allocated = await window();
  proc.kill('SIGWINCH');
  await sleep(200);
  const promised = await window();
  proc.kill('SIGWINCH');
  await sleep(200);
  const survivedOf = await window();
  proc.kill('SIGWINCH');
  const until = Date.now() + 10_000;
  while (!existsSync(file) && Date.now() < until) await sleep(100);
  const counted = JSON.parse(readFileSync(file, 'utf8')) as {
    bytes: number;
    promises: number;
    survived: number;
  };
  rmSync(file, { force: true });
  return {
    kbPerAnswer: counted.bytes / allocated / 1024,
    promisesPerAnswer: counted.promises / promised,
    kbSurvivedPerAnswer: counted.survived / survivedOf / 1024,
  };
}

async function main() {
  const started = Date.now();
  // CLI needs none of what follows: `--only CLI` measures it alone.
  if (wants('CLI')) for (const r of await benchCli(quick)) record(r);
  // B1 to B4, B16 and V1 share one API (with a baseline app and an SMPP peer), started only for them.
  if (SHARED_API_BENCHES.some(wants)) await benchOnSharedApi();
  // B5 starts an API of its own (TRUST_PROXY, default throttles) on a database of its own.
  if (wants('B5')) for (const r of await benchFairness(quick)) record(r);
  // T1: live hand-over while another account floods test sends; an API and a worker of its own.
  if (wants('T1')) for (const r of await benchTestTraffic(quick)) record(r);
  // B10: another tenant's /balance while a test key floods the largest bodies; an API of its own.
  if (wants('B10')) for (const r of await benchBigBodies(quick)) record(r);
  // B11: erasure against 200,000 kept callback events, alone and 10 at once beside another tenant's sends.
  if (wants('B11'))
    for (const r of await benchErasure({ rows: quick ? 50_000 : 200_000, runs: 5, quick })) record(r);
  // S1, S2: scheduled sends, with an API, a worker and a database of their own.
  if (wants('S')) for (const r of await benchScheduling(quick)) record(r);
  // F1, F2: chat-to-SMS fallback lag and send-window overhead, with an API and a worker of their own.
  if (wants('F')) for (const r of await benchFallback(quick)) record(r);

  // B6 seeds 1,000,000 messages into a database of its own and searches and exports them.
  if (wants('B6')) for (const r of await benchSearch(quick)) record(r);
  // B6 starts an API, two workers and two SMSCs of its own.
  if (wants('B7')) for (const r of await benchRouting(quick)) record(r);
  // B8 (a prune beside B1's load) and B9 (MySQL and Redis bytes per message): an API, a worker and a database of their own.
  if (wants('B8') || wants('B9')) for (const r of await benchRetention(quick, { b8: wants('B8') })) record(r);
  if (wants('B8P')) for (const r of await benchPartitions(quick)) record(r);
  // E-SMPP: Kannel through our SMPP server against Kannel straight to the peer, in this run.
  if (wants('E-SMPP')) for (const r of await benchSmppServer(quick)) record(r);
  // L1: the short-link redirect against /health/live, on an API of its own.
  if (wants('L1')) for (const r of await benchLinks(quick)) record(r);

  await report(started);
}

/** B1 to B4, B16 and V1, on one API process started here with the baseline app and an SMPP peer. */
async function benchOnSharedApi() {
  const apiPort = await freePort();
  const basePort = await freePort();
  const api = `http://127.0.0.1:${apiPort}`;
  const common = {
    DATABASE_URL: mysqlUrl,
    QUEUE_PREFIX: name,
    LOG_LEVEL: 'error',
    APP_ENV: 'bench',
    SERVER_SECRET: `bench-only-server-secret-of-this-run-${name}`,
    RATE_LIMIT_DEFAULT: '1000000/1',
    // B3's webhook endpoints are a receiver in this process, on loopback.
    CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
  };
  const apiProc = startNode(
    'dist/main.js',
    [],
    {
      ...common,
      PORT: String(apiPort),
      RUN_WORKERS: 'false',
      MAX_RECIPIENTS: '100000',
      // B1's test-key run sends far beyond a day's test quota: every answer is to be a send, not a 429.
      TEST_DAILY_MESSAGES: '1000000000',
      BENCH_COUNT_FILE: countFile('api'),
    },
    // `--cpu-prof <dir>`: the API, the baseline app and B3's worker write V8 CPU profiles there when
    // they stop (api, baseline, worker.cpuprofile; B3's webhook pair worker-without-webhooks and
    // worker-with-webhooks; bench/profile-top.ts and profile-diff.ts read them).
    [...cpuProfile('api'), ...countProbe],
  );
  const baseProc = startNode(
    'dist/bench-build/bench/baseline-app.js',
    [String(basePort)],
    { BENCH_COUNT_FILE: countFile('baseline') },
    [...cpuProfile('baseline'), ...countProbe],
  );
  const smsc = await startSmppPeer({ autoReceipt: 'DELIVRD', receiptDelayMs: 0 });
  const db = await (async () => {
    // A fresh database migrates first: on a loaded 2-core host that alone can pass a minute.
    await waitHttp(`${api}/health/ready`, 240_000);
    return createConnection({ host: '127.0.0.1', user: 'root', database: name, timezone: 'Z' });
  })().catch(async (err: unknown) => {
    // Nothing is measured: leave no process of this run behind.
    await stop(apiProc);
    await stop(baseProc);
    await smsc.close();
    throw err;
  });
  try {
    await waitHttp(`http://127.0.0.1:${basePort}/`, 30_000).catch(() => undefined);
    cli('accounts', 'create', '--username', 'bench', '--password', 'load-test-secret-1');
    cli('accounts', 'credit', '--username', 'bench', '--channel', 'sms', '--amount', '100000000');
    cli('accounts', 'price', '--username', 'bench', '--channel', 'sms', '--cost-per-unit', '0.01');
    const key = cli('keys', 'create', '--username', 'bench', '--name', 'bench', '--rate-limit', '1000000/1')
      .key as string;
    const auth = { 'x-api-key': key };
    const postSms = (body: object) =>
      fetch(`${api}/api/v1/json/bulk/sms`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth },
        body: JSON.stringify(body),
      });
    const rss = new RssSampler(apiProc.pid!);
    const single = { from: 'BENCH', to: '260971234567', message: 'Your code is 123456' };
    let rssB1 = NaN;
    let rpsApp = NaN;

    // B1 and B4 (under B1): alternate baseline and app runs so drift hits both alike.
    if (wants('B1')) {
      const b1 = {
        app: [] as Array<Awaited<ReturnType<typeof load>>>,
        base: [] as Array<Awaited<ReturnType<typeof load>>>,
      };
      await load(`${api}/api/v1/json/bulk/sms`, single, auth, 1); // warm-up
      await load(`http://127.0.0.1:${basePort}/api/v1/json/bulk/sms`, single, {}, 1);
      rss.start();
      for (let i = 0; i < RUNS; i++) {
        b1.base.push(
          await load(
            `http://127.0.0.1:${basePort}/api/v1/json/bulk/sms`,
            single,
            {},
            B1_SECONDS,
            baseProc.pid,
          ),
        );
        b1.app.push(await load(`${api}/api/v1/json/bulk/sms`, single, auth, B1_SECONDS, apiProc.pid));
      }
      rssB1 = rss.stop();
      const bad = b1.app.reduce((n, r) => n + r.non2xx + r.errors, 0);
      rpsApp = median(b1.app.map((r) => r.rps));
      const rpsBase = median(b1.base.map((r) => r.rps));
      record({
        id: 'B1',
        metric: 'single-recipient send, req/s (50 conns)',
        value: rpsApp,
        unit: 'req/s',
        baseline: rpsBase,
        ratio: rpsApp / rpsBase,
        bar: '≥ 0.5× baseline',
        ok: rpsApp / rpsBase >= 0.5 && bad === 0,
      });
      // CPU of the serving process per 2xx answer: the API's own cost of a send, whatever the
      // load generator, MySQL and Redis take of the same cores.
      const cpuApp = median(b1.app.map((r) => r.cpuPerSend));
      const cpuBase = median(b1.base.map((r) => r.cpuPerSend));
      record({
        id: 'B1',
        metric: 'single-recipient send, API CPU per accepted send',
        value: cpuApp * 1000,
        unit: 'µs',
        baseline: cpuBase * 1000,
        ratio: cpuApp / cpuBase,
        bar: '≤ 2× baseline',
        ok: cpuApp / cpuBase <= 2,
      });
      // Where the two cores went. A process near 100% of one core has its event loop saturated
      // (V8's helper threads add a little beyond it): its CPU per send then sets the rate, and with
      // 50 connections waiting, the latency, whatever the other processes leave free.
      record({
        id: 'B1',
        metric: 'single-recipient send, API process CPU, % of one core',
        value: median(b1.app.map((r) => r.busy)) * 100,
        unit: '%',
        baseline: median(b1.base.map((r) => r.busy)) * 100,
        bar: '',
        ok: true,
      });
      for (const [label, of] of [
        ['MariaDB', (r: Awaited<ReturnType<typeof load>>) => r.mariadbPerSend],
        ['Redis', (r: Awaited<ReturnType<typeof load>>) => r.redisPerSend],
        ['load generator', (r: Awaited<ReturnType<typeof load>>) => r.loadGeneratorPerSend],
      ] as const) {
        const value = median(b1.app.map(of)) * 1000;
        if (Number.isNaN(value)) continue;
        record({
          id: 'B1',
          metric: `single-recipient send, ${label} CPU per accepted send`,
          value,
          unit: 'µs',
          baseline: median(b1.base.map(of)) * 1000,
          bar: '',
          ok: true,
        });
      }
      record({
        id: 'B1',
        metric: 'single-recipient send, p50 latency',
        value: median(b1.app.map((r) => r.p50)),
        unit: 'ms',
        baseline: median(b1.base.map((r) => r.p50)),
        bar: '',
        ok: true,
      });
      const p99 = median(b1.app.map((r) => r.p99));
      record({
        id: 'B1',
        metric: 'single-recipient send, p99 latency',
        value: p99,
        unit: 'ms',
        baseline: median(b1.base.map((r) => r.p99)),
        bar: '≤ 50 ms',
        ok: p99 <= 50,
      });
      // Counts rather than times: the same for the same code whatever else the machine does.
      const countedBase = await countPerAnswer(
        baseProc,
        countFile('baseline'),
        `http://127.0.0.1:${basePort}/api/v1/json/bulk/sms`,
        single,
        {},
      );
      const countedApp = await countPerAnswer(
        apiProc,
        countFile('api'),
        `${api}/api/v1/json/bulk/sms`,
        single,
        auth,
      );
      record({
        id: 'B1',
        metric: 'single-recipient send, KB allocated per send',
        value: countedApp.kbPerAnswer,
        unit: 'KB',
        baseline: countedBase.kbPerAnswer,
        ratio: countedApp.kbPerAnswer / countedBase.kbPerAnswer,
        bar: '',
        ok: true,
      });
      record({
        id: 'B1',
        metric: 'single-recipient send, KB outliving a young GC per send',
        value: countedApp.kbSurvivedPerAnswer,
        unit: 'KB',
        baseline: countedBase.kbSurvivedPerAnswer,
        bar: '',
        ok: true,
      });
      record({
        id: 'B1',
        metric: 'single-recipient send, promises per send',
        value: countedApp.promisesPerAnswer,
        unit: '',
        baseline: countedBase.promisesPerAnswer,
        ratio: countedApp.promisesPerAnswer / countedBase.promisesPerAnswer,
        bar: '',
        ok: true,
      });
      if (bad) console.warn(`B1: ${bad} non-2xx answers or errors`);
    }

    // B1 with daily spend limits on the key and the account (never reached), and with a test key.
    if (wants('B1+') && wants('B1')) {
      cli('accounts', 'limit', '--username', 'bench', '--daily', '100000000');
      const limited = cli(
        'keys',
        'create',
        '--username',
        'bench',
        '--name',
        'bench-limited',
        '--rate-limit',
        '1000000/1',
        '--daily-limit',
        '100000000',
      ).key as string;
      const test = cli(
        'keys',
        'create',
        '--username',
        'bench',
        '--name',
        'bench-test',
        '--mode',
        'test',
        '--rate-limit',
        '1000000/1',
      ).key as string;
      await sleep(1100); // the account's new limit reaches the API's key cache
      for (const [label, k] of [
        ['with a daily limit on key and account', limited],
        ['from a test key', test],
      ] as const) {
        const runs: Array<Awaited<ReturnType<typeof load>>> = [];
        for (let i = 0; i < RUNS; i++)
          runs.push(await load(`${api}/api/v1/json/bulk/sms`, single, { 'x-api-key': k }, B1_SECONDS));
        const rps = median(runs.map((r) => r.rps));
        const failed = runs.reduce((n, r) => n + r.non2xx + r.errors, 0);
        record({
          id: 'B1',
          metric: `single-recipient send ${label}, req/s`,
          value: rps,
          unit: 'req/s',
          baseline: rpsApp,
          ratio: rps / rpsApp,
          bar: 'informational (baseline: B1 app)',
          ok: failed === 0,
        });
      }
      cli('accounts', 'limit', '--username', 'bench', '--clear');
    }

    // B2 and B4 (during B2): one 10,000-recipient request, against a raw multi-row insert of the same rows.
    let rssB2 = NaN;
    let rssBefore = NaN;
    if (wants('B2')) {
      const acks: number[] = [];
      rssBefore = rss.current();
      rss.start();
      for (let i = 0; i < B2_RUNS; i++) {
        const body = { from: 'BENCH', to: numbers(10_000, i * 10_000), message: 'Bulk notice' };
        const t0 = performance.now();
        const res = await postSms(body);
        await res.arrayBuffer();
        acks.push(performance.now() - t0);
        if (res.status !== 200) throw new Error(`B2: status ${res.status}`);
      }
      rssB2 = rss.stop();
      await db.query('CREATE TABLE IF NOT EXISTS bench_messages LIKE messages');
      const raw: number[] = [];
      for (let i = 0; i < B2_RUNS; i++) {
        const now = new Date();
        const values = numbers(10_000, i * 10_000).map((n, j) => [
          `${Date.now()}${String(j).padStart(6, '0')}`,
          uuidv7(),
          '1',
          '1',
          'sms',
          n,
          'ACKNOWLEDGED',
          null,
          1,
          '0.010000',
          now,
          now,
        ]);
        const t0 = performance.now();
        await db.beginTransaction();
        for (let c = 0; c < values.length; c += 2000) {
          await db.query(
            'INSERT INTO bench_messages (id, uuid, send_request_id, account_id, channel, recipient, status, reason, units, cost, created_at, updated_at) VALUES ?',
            [values.slice(c, c + 2000)],
          );
        }
        await db.commit();
        raw.push(performance.now() - t0);
        await db.query('TRUNCATE bench_messages');
      }
      const ackMed = median(acks);
      const rawMed = median(raw);
      record({
        id: 'B2',
        metric: '10,000-recipient request, ack time (median)',
        value: ackMed,
        unit: 'ms',
        baseline: rawMed,
        ratio: rawMed / ackMed,
        bar: '≤ 400 ms; ≥ 0.5× raw insert',
        ok: ackMed <= 400 && rawMed / ackMed >= 0.5,
      });
      record({
        id: 'B2',
        metric: '10,000-recipient request, ack time (max)',
        value: Math.max(...acks),
        unit: 'ms',
        bar: '',
        ok: true,
      });
      record({
        id: 'B2',
        metric: '10,000-recipient request, recipients/s',
        value: 10_000 / (ackMed / 1000),
        unit: 'rcpt/s',
        baseline: 10_000 / (rawMed / 1000),
        bar: '≥ 25,000',
        ok: 10_000 / (ackMed / 1000) >= 25_000,
      });

      // B16: the same size of request, personalised per recipient, and its preview.
      if (wants('B16')) for (const r of await benchPersonalisation(api, auth, B2_RUNS, ackMed)) record(r);

      if (!quick) {
        // 100,000 recipients, while a probe measures how long other requests wait.
        let worstStall = 0;
        let probing = true;
        const probe = (async () => {
          while (probing) {
            const t0 = performance.now();
            await fetch(`${api}/health/live`).then((r) => r.arrayBuffer());
            worstStall = Math.max(worstStall, performance.now() - t0);
            await sleep(10);
          }
        })();
        const body = { from: 'BENCH', to: numbers(100_000, 500_000), message: 'Big notice' };
        const t0 = performance.now();
        const res = await postSms(body);
        await res.arrayBuffer();
        const took = performance.now() - t0;
        probing = false;
        await probe;
        record({
          id: 'B2',
          metric: '100,000-recipient request, ack time',
          value: took,
          unit: 'ms',
          bar: '≤ 4000 ms',
          ok: took <= 4000 && res.status === 200,
        });
        record({
          id: 'B2',
          metric: '100,000-recipient request, worst wait of other requests',
          value: worstStall,
          unit: 'ms',
          bar: '≤ 100 ms',
          ok: worstStall <= 100,
        });
      }
    }
    // V1: a verification's start and check, beside a send and a balance read.
    if (wants('V1')) for (const r of await benchVerify({ api, pid: apiProc.pid!, cli, quick })) record(r);
    // B2 with a suppression list of 100,000 numbers on the account.
    if (wants('B2') || wants('B2S'))
      for (const r of await benchSuppressionList({ api, db, cli, runs: B2_RUNS, numbers })) record(r);
    // B2 for an account limited to 50 destination countries.
    if (wants('B2') || wants('B2C'))
      for (const r of await benchCountryList({ api, cli, runs: 2 * B2_RUNS, numbers })) record(r);
    if (wants('B1'))
      record({
        id: 'B4',
        metric: 'API peak RSS under B1',
        value: rssB1,
        unit: 'MB',
        bar: '≤ 250 MB',
        ok: rssB1 <= 250,
      });
    if (wants('B2'))
      record({
        id: 'B4',
        metric: 'RSS added by 10,000-recipient requests at peak',
        value: rssB2 - rssBefore,
        unit: 'MB',
        bar: '≤ 60 MB',
        ok: rssB2 - rssBefore <= 60,
      });

    // B3: throughput from queue to the SMPP peer: one worker, Kannel, two workers, receipts, latency.
    if (wants('B3') || wants('B3W'))
      for (const r of await benchDispatch({
        webhooksOnly: !wants('B3'),
        db,
        env: common,
        smsc,
        send: async (to, message) => {
          const res = await postSms({ from: 'BENCH', to, message });
          return ((await res.json()) as { api_reference: string }).api_reference;
        },
        numbers,
        preload: B3_PRELOAD,
        steadySeconds: STEADY_SECONDS,
        cpuProfile,
        api,
        key,
      }))
        record(r);
  } finally {
    await stop(apiProc);
    await stop(baseProc);
    await smsc.close();
    await dropBenchState(db, name);
    await db.end();
  }
}

/** The database and Redis servers the run measured, as the docs name them. */
async function servers(): Promise<{ mysql: string; buffer_pool_mb: number; redis: string }> {
  const db = await createConnection({ host: '127.0.0.1', user: 'root' });
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  try {
    const [[v]] = (await db.query('SELECT VERSION() AS version, @@innodb_buffer_pool_size AS pool')) as any;
    const info = await redis.info('server');
    return {
      mysql: String(v.version),
      buffer_pool_mb: Math.round(Number(v.pool) / 2 ** 20),
      redis: /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown',
    };
  } finally {
    await db.end();
    redis.disconnect();
  }
}

async function report(started: number) {
  const machine = {
    ...(await servers()),
    cores: cpus().length,
    cpu: cpus()[0]?.model,
    memory_gb: round(totalmem() / 2 ** 30),
    node: process.version,
    quick,
    runs: RUNS,
    seconds: round((Date.now() - started) / 1000),
  };
  console.log(
    `\nbulk-messaging benchmarks (${quick ? 'quick' : 'full'}; medians of ${RUNS} runs) on ${machine.cores} cores, ${machine.cpu}, Node ${machine.node}\n`,
  );
  const pad = (s: string, n: number) => s.padEnd(n);
  console.log(
    `${pad('id', 4)}${pad('metric', 58)}${pad('value', 14)}${pad('baseline', 12)}${pad('ratio', 8)}${pad('bar', 30)}ok`,
  );
  for (const r of rows) {
    console.log(
      `${pad(r.id, 4)}${pad(r.metric, 58)}${pad(Number.isNaN(r.value) ? '' : `${r.value} ${r.unit}`, 14)}${pad(r.baseline === undefined ? '' : String(r.baseline), 12)}${pad(r.ratio === undefined ? '' : `${r.ratio}×`, 8)}${pad(r.bar, 30)}${r.ok ? 'yes' : 'NO'}`,
    );
  }
  // Only a full run replaces the committed figures the docs quote; a quick or partial run keeps its own file.
  const file = quick || only ? 'bench/results/partial.json' : LATEST;
  const run = { machine, at: new Date().toISOString(), results: rows };
  writeFileSync(file, JSON.stringify(run, null, 2));
  console.log(`\nwritten to ${file} (${machine.seconds} s)`);
  if (file === LATEST)
    console.log(`rewrote the figures of ${(await writeBenchDocs('.', run)).join(' and ')}`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
