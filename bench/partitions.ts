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
 * single-recipient sends) runs without a prune and beside `db prune` of the oldest day with
 * ARCHIVE_DIR set, then again without and beside `db prune` of the next day without it: each
 * prune's time to the end, and B1's p99 beside it against without.
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
import { cliJson, dropBenchState, startBenchApi, stop, waitHttp, type BenchRow } from './lib.js';

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

    const b1 = () => b1Load(api, key, seconds);
    await b1(); // warm-up
    // A prune of one day beside B1: the prune's own time to its end, B1's p99 meanwhile, and
    // B1's p99 without it just before (a baseline taken once, before the first prune, was a
    // minute and another prune away from the second).
    const pruneBeside = async (day: number, archive: boolean) => {
      const without = (await b1()).latency.p99;
      const pruneEnv = archive ? { ...env, ARCHIVE_DIR: archiveDir } : env;
      const before = new Date(dayStart(day + 1)).toISOString();
      const load = b1();
      // The prune's own figure: from its first statement to its last (the CLI's start excluded).
      const { stdout } = await run(
        process.execPath,
        ['dist/cli.js', 'db', 'prune', '--before', before, '--json'],
        {
          env: { ...process.env, ...pruneEnv },
        },
      );
      const out = JSON.parse(stdout);
      const pruneSeconds = Number(out.seconds);
      const r = await load;
      if (r.non2xx || r.errors) throw new Error(`B8P: ${r.non2xx + r.errors} sends failed beside the prune`);
      if (out.partitions_dropped.length !== 1 || out.removed.messages !== perDay)
        throw new Error(
          `B8P: the prune dropped ${out.partitions_dropped.join(',')}, ${out.removed.messages} messages`,
        );
      return { pruneSeconds, p99: r.latency.p99, without };
    };
    for (const [day, archive, bar] of [
      [0, true, 60],
      [1, false, 10],
    ] as const) {
      const r = await pruneBeside(day, archive);
      const what = archive ? 'archive included' : 'no archive';
      rows.push({
        id: 'B8P',
        metric: `partition drop: db prune of a day of ${perDay.toLocaleString('en')} messages beside B1, ${what}`,
        value: Math.round(r.pruneSeconds * 10) / 10,
        unit: 's',
        bar: `≤ ${bar} s`,
        ok: r.pruneSeconds <= bar,
      });
      rows.push({
        id: 'B8P',
        metric: `B1 p99 beside a partition drop, ${what}`,
        value: r.p99,
        unit: 'ms',
        baseline: r.without,
        ratio: Math.round((r.p99 / r.without) * 100) / 100,
        bar: '≤ 1.1× without',
        ok: r.p99 / r.without <= 1.1,
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

/** B1's load: 50 connections of single-recipient sends for `seconds`. */
export const b1Load = (api: string, key: string, seconds: number) =>
  autocannon({
    url: `${api}/api/v1/json/bulk/sms`,
    method: 'POST',
    connections: 50,
    duration: seconds,
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ from: 'BENCH', to: '260971234567', message: 'Your code is 123456' }),
  });

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
