/**
 * B11: erasure (`POST /recipients/erase`) against a full callback outbox: `--rows` kept events
 * (default 200,000) of other recipients of the same account, and a few of the recipient erased.
 * First one erasure at a time (`--runs`, default 5): each one's time and their median (bar
 * ≤ 300 ms). Then 10 clients erase as fast as they can, each a different recipient of those kept
 * events every time, while another tenant sends single-recipient SMS (4 connections); quiet and
 * erasing runs alternate, and the sends' p50 is held against the quiet runs' (bar ≤ 3× quiet).
 * Runs inside `npm run bench` (`--only B11`), or alone:
 *   npm run build && npm run build:bench && node dist/bench-build/bench/erasure.js [--rows N] [--runs N] [--quick]
 * The rows are written straight into the outbox as the service keeps them (with their recipient
 * hash when the table has the column, so the same script measures a build without it).
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { createConnection } from 'mysql2/promise';
import { recipientHash } from '../src/modules/callbacks/outbox-recipient.js';
import {
  benchAccounts,
  cpuMs,
  dropBenchState,
  median,
  sleep,
  startBenchApi,
  stop,
  waitHttp,
  type BenchRow,
} from './lib.js';

const ERASED = '260971999999';
const CHUNK = 2000;
/** Erasures at once in the second part. */
const ERASERS = 10;
/** The recipients of the kept events: `ROWS` events spread over this many numbers from 260970000000. */
const SPREAD = 900_000;
const recipientOf = (i: number) => String(260_970_000_000 + (i % SPREAD));

export interface ErasureOptions {
  rows: number;
  runs: number;
  quick: boolean;
}

export async function benchErasure({ rows: ROWS, runs: RUNS, quick }: ErasureOptions): Promise<BenchRow[]> {
  const seconds = quick ? 3 : 8;
  const passes = quick ? 1 : 3;
  const svc = await startBenchApi('erasure', { RUN_WORKERS: 'false' });
  const db = await createConnection({ host: '127.0.0.1', user: 'root', timezone: 'Z' });
  const out: BenchRow[] = [];
  try {
    await waitHttp(`${svc.api}/health/ready`, 180_000);
    svc.cli('accounts', 'create', '--username', 'bench_erase', '--password', 'load-test-secret-1');
    const key = svc.cli(
      'keys',
      'create',
      '--username',
      'bench_erase',
      '--name',
      'bench',
      '--rate-limit',
      '1000000/1',
    ).key;
    const { other } = benchAccounts(svc.cli, ['other']);
    const [[{ id }]] = (await db.query(
      `SELECT id FROM \`${svc.name}\`.accounts WHERE username = 'bench_erase'`,
    )) as unknown as [Array<{ id: string }>];
    const [columns] = (await db.query(
      `SELECT column_name FROM information_schema.columns
        WHERE table_schema = ? AND table_name = 'callback_outbox' AND column_name = 'recipient_hash'`,
      [`${svc.name}_notification`],
    )) as unknown as [unknown[]];
    const hashed = columns.length > 0;
    const secret = svc.env.SERVER_SECRET!;
    const row = (i: number, recipient: string) => {
      const eventId = randomUUID();
      const job = JSON.stringify({
        eventId,
        url: 'https://hooks.example.com/sms',
        accountId: String(id),
        messageRowId: String(1_000_000 + i),
        payload: {
          event_id: eventId,
          message_id: randomUUID(),
          api_reference: String(7_000_000_000_000_000_000n + BigInt(i)),
          user_reference_id: null,
          channel: 'sms',
          recipient,
          status: 'DELIVERED',
          reason: null,
          occurred_at: new Date().toISOString(),
          test: false,
        },
      });
      return hashed ? [eventId, job, recipientHash(secret, recipient)] : [eventId, job];
    };
    const table = `\`${svc.name}_notification\`.callback_outbox`;
    const cols = hashed ? '(event_id, job, recipient_hash)' : '(event_id, job)';
    const started = performance.now();
    for (let i = 0; i < ROWS; i += CHUNK) {
      const rows = Array.from({ length: Math.min(CHUNK, ROWS - i) }, (_, j) =>
        row(i + j, recipientOf(i + j)),
      );
      await db.query(`INSERT INTO ${table} ${cols} VALUES ?`, [rows]);
    }
    await db.query(`INSERT INTO ${table} ${cols} VALUES ?`, [[0, 1, 2].map((i) => row(ROWS + i, ERASED))]);
    console.log(
      `${ROWS} other events kept in ${Math.round(performance.now() - started)} ms (${hashed ? 'with' : 'without'} recipient_hash)`,
    );

    const erase = async (recipient: string) => {
      const t0 = performance.now();
      const res = await fetch(`${svc.api}/api/v1/json/recipients/erase`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ recipient }),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`erase answered ${res.status}`);
      return performance.now() - t0;
    };

    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) times.push(await erase(ERASED));
    const one = median(times);
    console.log(`B11 erase ms: ${times.map((t) => t.toFixed(0)).join(' ')}; median ${one.toFixed(0)} ms`);
    out.push({
      id: 'B11',
      metric: `one erasure with ${ROWS.toLocaleString('en-US')} other events in the outbox (median)`,
      value: one,
      unit: 'ms',
      bar: '≤ 300 ms',
      ok: one <= 300,
    });

    // The other tenant's single sends, alone or beside the erasures.
    const sends = async (secs: number) => {
      const r = await autocannon({
        url: `${svc.api}/api/v1/json/bulk/sms`,
        method: 'POST',
        connections: 4,
        duration: secs,
        headers: { 'content-type': 'application/json', 'x-api-key': other },
        body: JSON.stringify({ from: 'BENCH', to: ['260965000001'], message: 'Bulk notice' }),
      });
      return { p50: r.latency.p50, p90: r.latency.p90, bad: r.non2xx + r.errors, requests: r.requests.total };
    };
    // ERASERS clients, each erasing the next kept recipient (one outbox event each) until `ms` is over.
    let next = 0;
    const erasing = async (ms: number) => {
      const until = Date.now() + ms;
      const took: number[] = [];
      await Promise.all(
        Array.from({ length: ERASERS }, async () => {
          while (Date.now() < until) took.push(await erase(recipientOf(next++ % ROWS)));
        }),
      );
      return took;
    };
    await sends(1); // warm-up
    // What each costs the API process alone: its CPU time over a run of sends, then of erasures.
    const pid = svc.proc.pid!;
    let cpu0 = cpuMs(pid);
    const alone = await sends(seconds);
    const cpuPerSend = (cpuMs(pid) - cpu0) / alone.requests;
    cpu0 = cpuMs(pid);
    const erasedAlone = await erasing(seconds * 1000);
    const cpuPerErasure = (cpuMs(pid) - cpu0) / erasedAlone.length;
    console.log(
      `B11 API CPU per send ${cpuPerSend.toFixed(2)} ms, per erasure ${cpuPerErasure.toFixed(2)} ms ` +
        `(${erasedAlone.length} erasures alone, median ${median(erasedAlone).toFixed(0)} ms)`,
    );
    const quiet: Array<Awaited<ReturnType<typeof sends>>> = [];
    const loaded: Array<Awaited<ReturnType<typeof sends>>> = [];
    const erasures: number[] = [];
    for (let pass = 0; pass < passes; pass++) {
      quiet.push(await sends(seconds));
      const load = erasing((seconds + 2) * 1000);
      await sleep(1000);
      loaded.push(await sends(seconds));
      erasures.push(...(await load));
    }
    const q50 = median(quiet.map((r) => r.p50));
    const l50 = median(loaded.map((r) => r.p50));
    const q90 = median(quiet.map((r) => r.p90));
    const l90 = median(loaded.map((r) => r.p90));
    const bad = loaded.reduce((n, r) => n + r.bad, 0);
    const rate = erasures.length / passes / (seconds + 2);
    console.log(
      `B11 another tenant's send p50 quiet ${q50} ms, beside ${ERASERS} erasures at once ${l50} ms; ` +
        `p90 ${q90} / ${l90} ms; sends per run ${JSON.stringify(quiet.map((r) => r.requests))} / ` +
        `${JSON.stringify(loaded.map((r) => r.requests))}; ${erasures.length} erasures, ${rate.toFixed(0)}/s, ` +
        `median ${median(erasures).toFixed(0)} ms`,
    );
    out.push({
      id: 'B11',
      metric: `another tenant's send p50 beside ${ERASERS} erasures at once`,
      value: l50,
      unit: 'ms',
      baseline: q50,
      ratio: l50 / Math.max(1, q50),
      bar: '≤ 3× quiet',
      ok: l50 <= 3 * Math.max(1, q50) && bad === 0,
    });
    out.push({
      id: 'B11',
      metric: 'API CPU per erasure (against a send)',
      value: cpuPerErasure,
      unit: 'ms',
      baseline: cpuPerSend,
      ratio: cpuPerErasure / cpuPerSend,
      bar: 'printed',
      ok: true,
    });
    out.push({
      id: 'B11',
      metric: `erasures answered per second by ${ERASERS} clients at once (median ms each)`,
      value: rate,
      unit: '/s',
      baseline: median(erasures),
      bar: 'printed',
      ok: true,
    });
  } finally {
    await stop(svc.proc);
    await dropBenchState(db, svc.name);
    await db.end();
  }
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (flag: string, fallback: number) => {
    const i = process.argv.indexOf(flag);
    return i >= 0 ? Number(process.argv[i + 1]) : fallback;
  };
  benchErasure({
    rows: arg('--rows', 200_000),
    runs: arg('--runs', 10),
    quick: process.argv.includes('--quick'),
  }).then(
    (rows) => {
      for (const r of rows)
        console.log(
          `${r.id}  ${r.metric.padEnd(64)} ${`${r.value.toFixed(1)} ${r.unit}`.padEnd(10)} ${r.baseline === undefined ? '' : `baseline ${r.baseline.toFixed(1)}`.padEnd(14)} ${r.bar} ${r.ok ? 'yes' : 'NO'}`,
        );
      process.exit(0);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
