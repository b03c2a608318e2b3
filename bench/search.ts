/**
 * B6: message search and export over 1,000,000 messages. Runs inside `npm run bench`, or alone:
 *   npm run build && npm run build:bench && node dist/bench-build/bench/search.js [--quick]
 *
 * Seeds one account's messages straight into MySQL (INSERT ... SELECT from a sequence table,
 * the way a busy account's history looks: requests of 1,000 messages, every state, 10,000
 * recipients), then measures through the API: a CSV export of every message (rows/s, and the
 * API's resident memory above what it held before), and filtered search pages (latency).
 * --quick seeds 200,000 messages instead.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { createConnection } from 'mysql2/promise';
import { seedMessages, seedRecipient } from '../test/support/message-seed.js';
import {
  percentile,
  RssSampler,
  stop,
  waitHttp,
  type BenchRow,
  startBenchApi,
  dropBenchState,
} from './lib.js';

const PAGES = 600;

/** CPU time (user + system) a process has used, in ms: a figure the machine's other load hardly moves. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command name.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

export async function benchSearch(quick: boolean): Promise<BenchRow[]> {
  const count = quick ? 200_000 : 1_000_000;
  const label = `${count.toLocaleString('en')} messages`;
  const {
    name,
    api,
    cli,
    proc: apiProc,
  } = await startBenchApi('search', {
    RUN_WORKERS: 'false',
    RATE_LIMIT_DEFAULT: '1000000/1',
  });
  const rows: BenchRow[] = [];
  await waitHttp(`${api}/health/ready`);
  const db = await createConnection({ host: '127.0.0.1', user: 'root', database: name, timezone: 'Z' });
  try {
    cli('accounts', 'create', '--username', 'searcher', '--password', 'search-bench-secret-1');
    const key = cli(
      'keys',
      'create',
      '--username',
      'searcher',
      '--name',
      'bench',
      '--rate-limit',
      '1000000/1',
    ).key as string;
    const [[account]] = (await db.query("SELECT id FROM accounts WHERE username = 'searcher'")) as any;
    const t0 = performance.now();
    await seedMessages((sql, params) => db.query(sql, params), {
      accountId: String(account.id),
      count,
      firstId: 1_000_000_000n,
      start: new Date(Date.now() - 30 * 86_400_000),
      perRequest: 1000,
      stepMs: 60_000,
    });
    const seedSeconds = (performance.now() - t0) / 1000;
    await db.query('ANALYZE TABLE messages, send_requests');
    rows.push({
      id: 'B6',
      metric: `seed ${label} (INSERT … SELECT)`,
      value: Math.round(count / seedSeconds),
      unit: 'rows/s',
      bar: '',
      ok: true,
    });

    // Export: every message as CSV, read as fast as the client can.
    const rss = new RssSampler(apiProc.pid!);
    await fetch(`${api}/api/v1/json/messages?limit=10`, { headers: { 'x-api-key': key } }).then((r) =>
      r.arrayBuffer(),
    );
    const rssBefore = rss.current();
    rss.start();
    const cpu0 = cpuMs(apiProc.pid!);
    const e0 = performance.now();
    const res = await fetch(`${api}/api/v1/json/messages/export?format=csv`, {
      headers: { 'x-api-key': key },
    });
    let lines = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++;
    }
    const exportSeconds = (performance.now() - e0) / 1000;
    const rssPeak = rss.stop();
    const cpuSeconds = (cpuMs(apiProc.pid!) - cpu0) / 1000;
    const exported = lines - 1;
    const rate = exported / exportSeconds;
    rows.push({
      id: 'B6',
      metric: `CSV export of ${label}`,
      value: Math.round(rate),
      unit: 'rows/s',
      bar: '≥ 50,000 rows/s',
      ok: rate >= 50_000 && exported === count,
    });
    rows.push({
      id: 'B6',
      metric: `CSV export: rows per second of API CPU time`,
      value: Math.round(exported / cpuSeconds),
      unit: 'rows/s',
      bar: '',
      ok: true,
    });
    rows.push({
      id: 'B6',
      metric: `API RSS growth during the export`,
      value: Math.round((rssPeak - rssBefore) * 10) / 10,
      unit: 'MB',
      bar: '≤ 50 MB',
      ok: rssPeak - rssBefore <= 50,
    });

    // Search: filtered first pages and pages deep into the history, one request at a time.
    const from = new Date(Date.now() - 20 * 86_400_000).toISOString();
    const to = new Date(Date.now() - 10 * 86_400_000).toISOString();
    const first = (await fetch(`${api}/api/v1/json/messages?limit=1000&status=DELIVERED`, {
      headers: { 'x-api-key': key },
    }).then((r) => r.json())) as { next_cursor: string };
    const queries = [
      'status=FAILED',
      'channel=email',
      `recipient=${seedRecipient(4242)}`,
      'status=DELIVERED&channel=sms',
      `created_from=${from}&created_to=${to}`,
      `status=UNDELIVERED&created_from=${from}`,
      `status=DELIVERED&cursor=${first.next_cursor}`,
      'user_reference_id=seed-1000000500',
      '',
    ];
    const latencies: number[] = [];
    const searchCpu0 = cpuMs(apiProc.pid!);
    for (let i = 0; i < PAGES; i++) {
      const q = queries[i % queries.length];
      const s0 = performance.now();
      const r = await fetch(`${api}/api/v1/json/messages?limit=100&${q}`, { headers: { 'x-api-key': key } });
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`B6: search ${q} answered ${r.status}`);
      latencies.push(performance.now() - s0);
    }
    const cpuPerPage = (cpuMs(apiProc.pid!) - searchCpu0) / PAGES;
    const p99 = percentile(latencies, 99);
    rows.push({
      id: 'B6',
      metric: `filtered search page (100 rows) over ${label}, p50`,
      value: Math.round(percentile(latencies, 50) * 10) / 10,
      unit: 'ms',
      bar: '',
      ok: true,
    });
    rows.push({
      id: 'B6',
      metric: `filtered search page: API CPU time per page`,
      value: Math.round(cpuPerPage * 100) / 100,
      unit: 'ms',
      bar: '',
      ok: true,
    });
    rows.push({
      id: 'B6',
      metric: `filtered search page (100 rows) over ${label}, p99`,
      value: Math.round(p99 * 10) / 10,
      unit: 'ms',
      bar: '≤ 50 ms',
      ok: p99 <= 50,
    });
  } finally {
    await stop(apiProc);
    await dropBenchState(db, name);
    await db.end();
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchSearch(process.argv.includes('--quick')).then(
    (rows) => {
      for (const r of rows)
        console.log(
          `${r.id}  ${r.metric.padEnd(60)} ${`${r.value} ${r.unit}`.padEnd(16)} ${r.bar.padEnd(18)} ${r.ok ? 'yes' : 'NO'}`,
        );
      process.exit(0);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
