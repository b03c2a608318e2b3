/**
 * B8P: pruning a whole day by DROP PARTITION while B1's load runs. Runs inside `npm run bench`
 * (`--only B8P`), or alone:
 *   npm run build && npm run build:bench && node dist/bench-build/bench/partitions.js [--quick] [--messages N]
 *
 * The API starts on fresh databases (the migrations partition the empty tables), whose
 * partitioned tables (the message tables, receipts, callback attempts, request logs) are then
 * put back unpartitioned to stand for an installation from before partitions. It seeds
 * three old days of N messages each (default 1,000,000; --quick 100,000), every one final,
 * with an event and a receipt each, their ids following their times as the service's do, and
 * times `db partition` (the conversion, per million rows). Then B1 (50 connections of
 * single-recipient sends) runs 10 s alone and 10 s from the start of `db prune` of the oldest
 * day with ARCHIVE_DIR set, then the same with `db prune` of the next day without it: each
 * prune's own time, and B1's p99 over its 10 s from the prune's own start against its 10 s
 * alone, in the same run (b1Beside), as B8 holds B1 beside a prune. Beside them, for information, the
 * p99 over the requests in flight during the prune's own run against those before and after it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { createConnection, type Connection } from 'mysql2/promise';
import { seedMessages } from '../test/support/message-seed.js';
import { PartitionMessageTablesByDay1796597880783 } from '../src/database/migrations/main/1796597880783-partition-message-tables-by-day.js';
import { PartitionDeliveryReportsByDay1796602000000 } from '../src/database/migrations/notification/1796602000000-partition-delivery-reports-by-day.js';
import { PartitionCallbackAttemptsByDay1796603000000 } from '../src/database/migrations/notification/1796603000000-partition-callback-attempts-by-day.js';
import { PartitionRequestLogsByDay1796604000000 } from '../src/database/migrations/log/1796604000000-partition-request-logs-by-day.js';
import { cliJson, dropBenchState, percentile, startBenchApi, stop, waitHttp, type BenchRow } from './lib.js';

const DAY_MS = 86_400_000;
const run = promisify(execFile);

export async function benchPartitions(quick: boolean, messages?: number): Promise<BenchRow[]> {
  const perDay = messages ?? (quick ? 100_000 : 1_000_000);
  const seconds = quick ? 5 : 10;
  const archiveDir = mkdtempSync(join(tmpdir(), 'b8p-archive-'));
  const { name, api, cli, env, proc } = await startBenchApi('partitions', {
    RUN_WORKERS: 'false',
    RATE_LIMIT_DEFAULT: '1000000/1',
    // Off: its fixed port may be another bench's on a shared machine, and B1 does not use it.
    SMPP_SERVER_PORT: '0',
  });
  // Other benches' processes may share the machine: a start that migrates can take a while.
  await waitHttp(`${api}/health/ready`, 180_000);
  const db = await createConnection({ host: '127.0.0.1', user: 'root', database: name, timezone: 'Z' });
  const rows: BenchRow[] = [];
  try {
    cli('accounts', 'create', '--username', 'keeper', '--password', 'partition-bench-secret-1');
    cli('accounts', 'credit', '--username', 'keeper', '--channel', 'sms', '--amount', '100000000');
    cli('accounts', 'price', '--username', 'keeper', '--channel', 'sms', '--cost-per-unit', '0.01');
    const key = cli('keys', 'create', '--username', 'keeper', '--name', 'bench', '--rate-limit', '1000000/1')
      .key as string;
    const [[account]] = (await db.query("SELECT id FROM accounts WHERE username = 'keeper'")) as any;

    const dayStart = await seedOldDays(db, name, String(account.id), perDay, 3);
    const total = perDay * 3;

    const c0 = performance.now();
    cliJson(env, 'db', 'partition');
    const convertSeconds = (performance.now() - c0) / 1000;
    rows.push({
      id: 'B8P',
      metric: `db partition of ${total.toLocaleString('en')} messages with an event and receipt each (s per million)`,
      value: Math.round((convertSeconds / (total / 1e6)) * 10) / 10,
      unit: 's',
      bar: '',
      ok: true,
    });

    await b1Load(api, key, seconds); // warm-up
    // A prune of one day beside B1, which runs `seconds` alone and `seconds` from the prune's
    // start: the prune's own time, B1's p99 over the requests in flight during the prune's own
    // run, against B1's p99 over the requests before and after it.
    const pruneBeside = (day: number, archive: boolean) =>
      b1Beside(api, key, seconds, seconds, async () => {
        const pruneEnv = archive ? { ...env, ARCHIVE_DIR: archiveDir } : env;
        const before = new Date(dayStart(day + 1)).toISOString();
        const { stdout } = await run(
          process.execPath,
          ['dist/cli.js', 'db', 'prune', '--before', before, '--json'],
          { env: { ...process.env, ...pruneEnv } },
        );
        const ended = performance.now();
        const out = JSON.parse(stdout);
        if (out.partitions_dropped.length !== 1 || out.removed.messages !== perDay)
          throw new Error(
            `B8P: the prune dropped ${out.partitions_dropped.join(',')}, ${out.removed.messages} messages`,
          );
        // The prune's own run: from its first statement to its last (the CLI's start excluded,
        // as B8's load begins once its prune removes); the CLI's stop after it takes milliseconds.
        const seconds = Number(out.seconds);
        return { result: seconds, window: { from: ended - seconds * 1000, to: ended } };
      });
    for (const [day, archive, bar] of [
      [0, true, 60],
      [1, false, 10],
    ] as const) {
      const r = await pruneBeside(day, archive);
      if (r.failed) throw new Error(`B8P: ${r.failed} sends failed beside the prune`);
      const what = archive ? 'archive included' : 'no archive';
      rows.push({
        id: 'B8P',
        metric: `partition drop: db prune of a day of ${perDay.toLocaleString('en')} messages beside B1, ${what}`,
        value: Math.round(r.result * 10) / 10,
        unit: 's',
        bar: `≤ ${bar} s`,
        ok: r.result <= bar,
      });
      rows.push({
        id: 'B8P',
        metric: `B1 p99 beside a partition drop, ${what}: its ${seconds} s from the prune's own start (${r.counts.run} requests) against its ${seconds} s alone before it (${r.counts.alone})`,
        value: r.run,
        unit: 'ms',
        baseline: r.alone,
        ratio: Math.round((r.run / r.alone) * 100) / 100,
        bar: '≤ 1.1× without',
        ok: r.run / r.alone <= 1.1,
      });
      rows.push({
        id: 'B8P',
        metric: `B1 p99 over the requests in flight during the prune's own run, ${what} (${r.counts.beside} requests, against ${r.counts.without} before and after)`,
        value: r.p99,
        unit: 'ms',
        baseline: r.without,
        ratio: Math.round((r.p99 / r.without) * 100) / 100,
        bar: 'informational',
        ok: true,
      });
      rows.push({
        id: 'B8P',
        metric: `B1 p99 from the CLI's start to its end, ${what} (${r.counts.whole} requests)`,
        value: r.p99Whole,
        unit: 'ms',
        baseline: r.without,
        ratio: Math.round((r.p99Whole / r.without) * 100) / 100,
        bar: 'informational',
        ok: true,
      });
    }
  } finally {
    await stop(proc);
    await dropBenchState(db, name);
    await db.end();
    rmSync(archiveDir, { recursive: true, force: true });
  }
  return rows;
}

/** B1's request: a single-recipient send. */
const b1Options = (api: string, key: string) => ({
  url: `${api}/api/v1/json/bulk/sms`,
  method: 'POST' as const,
  connections: 50,
  headers: { 'content-type': 'application/json', 'x-api-key': key },
  body: JSON.stringify({ from: 'BENCH', to: '260971234567', message: 'Your code is 123456' }),
});

/** B1's load: 50 connections of single-recipient sends for `seconds`. */
export const b1Load = (api: string, key: string, seconds: number) =>
  autocannon({ ...b1Options(api, key), duration: seconds });

/** What `work` (a prune) reports of itself: when its own run began and ended (performance.now()). */
export interface Window {
  from: number;
  to: number;
}

/**
 * The CLI's start, before the prune's own run: the load goes on this much longer, so that B1's
 * run beside the prune lasts its seconds from the prune's own start.
 */
const CLI_START_SECONDS = 3;

export interface Beside<T> {
  result: T;
  /**
   * B1's p99 over its run beside the work: the requests sent within `besideSeconds` of the
   * work's own start (the CLI's start excluded, as B8's load begins once its prune removes).
   */
  run: number;
  /** B1's p99 over its run alone: the requests answered before the work started (its first second left out). */
  alone: number;
  /** B1's p99 over the requests in flight during the work's own window. */
  p99: number;
  /** B1's p99 over the requests before the work started and after it ended. */
  without: number;
  /** B1's p99 over the requests in flight at any time from the work's start to its end (the CLI's start included). */
  p99Whole: number;
  /** Requests in each set. */
  counts: { run: number; alone: number; beside: number; without: number; whole: number };
  failed: number;
}

/**
 * B1's load, one run of `aloneSeconds + besideSeconds` and the CLI's start: `work` (which says
 * when its own run began and ended) starts after `aloneSeconds`, and the load stops
 * `besideSeconds` and CLI_START_SECONDS later, as B1 beside a prune always did, whether or not
 * the work is over (a prune with the archive rests while others write, and goes on after the
 * load). Each response is kept with the times its
 * request was sent and answered, so the p99 beside the work and without it come from one run on
 * one warm process, seconds apart: two separate 10 s runs a minute apart moved B1's p99 alone
 * from 69 to 132 ms on a shared 2-core machine.
 */
export async function b1Beside<T>(
  api: string,
  key: string,
  aloneSeconds: number,
  besideSeconds: number,
  work: () => Promise<{ result: T; window: Window }>,
): Promise<Beside<T>> {
  const answers: Array<{ sent: number; done: number }> = [];
  let failed = 0;
  let resolveDone: (r: autocannon.Result | undefined) => void;
  const finished = new Promise<autocannon.Result | undefined>((resolve) => (resolveDone = resolve));
  const instance = autocannon({ ...b1Options(api, key), duration: 3600 }, (_err, r) => resolveDone(r));
  instance.on('response', (_client: unknown, status: number, _bytes: number, responseTime: number) => {
    const done = performance.now();
    if (status < 200 || status > 299) failed++;
    answers.push({ sent: done - responseTime, done });
  });
  const pause = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  try {
    await pause(aloneSeconds);
    const started = performance.now();
    let ended = Infinity;
    const working = work().finally(() => (ended = performance.now()));
    working.catch(() => undefined); // observed below, after the load stops
    await pause(besideSeconds + CLI_START_SECONDS);
    instance.stop();
    failed += (await finished)?.errors ?? 0;
    const { result, window } = await working;
    const latency = (a: { sent: number; done: number }) => a.done - a.sent;
    const overlaps = (a: { sent: number; done: number }, from: number, to: number) =>
      a.done >= from && a.sent <= to;
    const beside = answers.filter((a) => overlaps(a, window.from, window.to)).map(latency);
    const whole = answers.filter((a) => overlaps(a, started, ended)).map(latency);
    const warm = answers.filter((a) => a.sent >= answers[0].sent + 1000); // the first second: connections opening
    const without = warm.filter((a) => a.done < started || a.sent > ended).map(latency);
    const run = answers
      .filter((a) => a.sent >= window.from && a.sent <= window.from + besideSeconds * 1000)
      .map(latency);
    const alone = warm.filter((a) => a.done < started).map(latency);
    return {
      result,
      run: percentile(run, 99),
      alone: percentile(alone, 99),
      p99: percentile(beside, 99),
      without: percentile(without, 99),
      p99Whole: percentile(whole, 99),
      counts: {
        run: run.length,
        alone: alone.length,
        beside: beside.length,
        without: without.length,
        whole: whole.length,
      },
      failed,
    };
  } finally {
    instance.stop();
  }
}

/** The first millisecond of the seeded day `n` (0 the oldest), a hundred days back. */
export const seededDayStart = (n: number) => Math.floor(Date.now() / DAY_MS) * DAY_MS - (100 - n) * DAY_MS;

/**
 * An installation from before partitions, seeded: the message tables, receipts, callback
 * attempts and request logs put back unpartitioned, then `days` old days of `perDay` messages
 * each (the oldest a hundred days back), every one final, with an event and a receipt each.
 * Returns the first millisecond of a seeded day.
 */
export async function seedOldDays(
  db: Connection,
  name: string,
  accountId: string,
  perDay: number,
  days: number,
): Promise<(n: number) => number> {
  // An installation from before partitions: the tables as they were.
  const runner = { query: async (sql: string, params?: unknown[]) => (await db.query(sql, params))[0] };
  await new PartitionMessageTablesByDay1796597880783().down(runner as any);
  // The receipts, callback attempts and request logs too, each in its own database: left
  // partitioned by their migrations, the seeded receipts would all sit in one partition made
  // for today, which no prune of an old day can drop.
  for (const [suffix, down] of [
    ['_notification', new PartitionDeliveryReportsByDay1796602000000()],
    ['_notification', new PartitionCallbackAttemptsByDay1796603000000()],
    ['_log', new PartitionRequestLogsByDay1796604000000()],
  ] as const) {
    await db.query(`USE \`${name}${suffix}\``);
    await down.down(runner as any);
  }
  await db.query(`USE \`${name}\``);
  const dayStart = seededDayStart;
  const t0 = performance.now();
  for (let d = 0; d < days; d++) {
    const start = new Date(dayStart(d));
    await seedMessages((sql, params) => db.query(sql, params), {
      accountId,
      count: perDay,
      firstId: BigInt(start.getTime()) * 1_000_000n,
      start,
      perRequest: 1000,
      stepMs: Math.floor(DAY_MS / Math.ceil(perDay / 1000)),
      // As the service's: a day's ids span the day, so a walk bounded by time reads its rows only.
      idsFollowTime: true,
    });
  }
  // Every seeded message final, so each day may go whole; an event and a receipt each.
  // updated_at kept: the column follows every UPDATE, and a message changed now is not old.
  await db.query(
    "UPDATE messages SET status = 'DELIVERED', updated_at = created_at WHERE status IN ('ACKNOWLEDGED', 'SENT', 'SCHEDULED')",
  );
  await db.query(
    'INSERT INTO message_events (message_id, status, occurred_at) SELECT id, status, created_at FROM messages',
  );
  await db.query(
    `INSERT INTO \`${name}_notification\`.delivery_reports
       (transport, provider_message_id, status, occurred_at, received_at, applied_at, message_id)
     SELECT 'smpp', CONCAT('p', id), 'DELIVRD', created_at, created_at, created_at, id FROM messages`,
  );
  const total = perDay * days;
  process.stderr.write(
    `B8P: seeded ${total} messages in ${((performance.now() - t0) / 1000).toFixed(0)} s\n`,
  );
  return dayStart;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf('--messages');
  benchPartitions(process.argv.includes('--quick'), at > 0 ? Number(process.argv[at + 1]) : undefined).then(
    (rows) => {
      for (const r of rows)
        console.log(
          `${r.id}  ${r.metric.padEnd(90)} ${`${r.value} ${r.unit}`.padEnd(10)} ${r.baseline === undefined ? '' : `(without: ${r.baseline}, ${r.ratio}×)`} ${r.bar} ${r.ok ? 'yes' : 'NO'}`,
        );
      process.exit(0);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
