/**
 * The archive step of B8P alone, to compare builds in minutes: `db prune` of one seeded day with
 * ARCHIVE_DIR set, on an idle database, with the CPU the CLI process and MariaDB spent on it.
 *   node dist/bench-build/bench/archive-day.js seed <db> [--messages N] [--days D]
 *   node dist/bench-build/bench/archive-day.js prune <db> <day> [--cli path/to/cli.js] [--cpu-prof dir] [--b1] [--no-archive]
 *   node dist/bench-build/bench/archive-day.js drop <db>
 * `seed` makes the databases (`db migrate`) and seeds D old days (default 6) of N messages each
 * (default 200,000) as B8P does, then partitions them (`db partition`). Each `prune` removes the
 * day `day` (0 the oldest; prune them in order) with the given build's CLI, so several builds
 * can be alternated on one seed. It prints the prune's seconds, the rows archived per second and
 * the CPU milliseconds per thousand rows of the CLI process and of MariaDB (`--cpu-prof`: the CLI's
 * V8 profile in that directory, for profile-top.js). `--b1`: the build's API is started on the
 * databases and B1's load runs 10 s alone and on from the prune's start, as in B8P: B1's p99
 * over its 10 s from the prune's own start against its 10 s alone, and over the requests in flight
 * during the prune's own run against those before and after it. `--no-archive`: the prune
 * without ARCHIVE_DIR (B8P's second prune), its per-1,000-row figures then per 1,000 messages
 * removed.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import {
  benchEnv,
  cliJson,
  cpuMs,
  dropBenchState,
  freePort,
  pidOf,
  startNode,
  stop,
  waitHttp,
} from './lib.js';
import { b1Beside, b1Load, seedOldDays, seededDayStart, type Beside } from './partitions.js';

const envOf = (name: string) => benchEnv(name);

const flag = (name: string, fallback: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
};

async function seed(name: string): Promise<void> {
  const env = envOf(name);
  cliJson(env, 'db', 'migrate');
  cliJson(env, 'accounts', 'create', '--username', 'keeper', '--password', 'partition-bench-secret-1');
  const db = await createConnection({ host: '127.0.0.1', user: 'root', database: name, timezone: 'Z' });
  try {
    const [[account]] = (await db.query("SELECT id FROM accounts WHERE username = 'keeper'")) as any;
    const perDay = Number(flag('--messages', '200000'));
    await seedOldDays(db, name, String(account.id), perDay, Number(flag('--days', '6')));
    cliJson(env, 'db', 'partition');
  } finally {
    await db.end();
  }
}

/** The build's API on the databases, with a key for B1, after B1's warm-up. */
async function startB1(name: string, cli: string) {
  const env = envOf(name);
  const port = await freePort();
  const api = `http://127.0.0.1:${port}`;
  const proc = startNode(join(dirname(cli), 'main.js'), [], {
    ...env,
    PORT: String(port),
    RUN_WORKERS: 'false',
    RATE_LIMIT_DEFAULT: '1000000/1',
    HTTP_MAX_REQUESTS_PER_SOCKET: '0',
  });
  await waitHttp(`${api}/health/ready`, 180_000);
  cliJson(env, 'accounts', 'credit', '--username', 'keeper', '--channel', 'sms', '--amount', '100000000');
  cliJson(env, 'accounts', 'price', '--username', 'keeper', '--channel', 'sms', '--cost-per-unit', '0.01');
  const key = cliJson(env, 'keys', 'create', '--username', 'keeper', '--name', `b1-${Date.now()}`)
    .key as string;
  await b1Load(api, key, 10);
  return { proc, api, key };
}

interface PruneRun {
  code: number | null;
  stdout: string;
  cliCpu: number;
  dbCpu: number;
  wall: number;
}

/** `db prune` of `day` with the build's CLI, its CPU read from /proc until it ends. */
async function runPrune(
  name: string,
  day: number,
  cli: string,
  archiveDir: string | null,
): Promise<PruneRun> {
  const mariadb = pidOf('mariadbd') ?? pidOf('mysqld');
  const dbBefore = mariadb ? cpuMs(mariadb) : 0;
  const before = new Date(seededDayStart(day + 1)).toISOString();
  const started = performance.now();
  const profile = flag('--cpu-prof', '');
  const nodeArgs = profile ? ['--cpu-prof', '--cpu-prof-dir', profile] : [];
  const child = spawn(process.execPath, [...nodeArgs, cli, 'db', 'prune', '--before', before, '--json'], {
    env: { ...process.env, ...envOf(name), ...(archiveDir && { ARCHIVE_DIR: archiveDir }) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  let cliCpu = 0;
  const timer = setInterval(() => {
    try {
      cliCpu = cpuMs(child.pid!);
    } catch {
      /* ended */
    }
  }, 20);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearInterval(timer);
  const wall = (performance.now() - started) / 1000;
  return { code, stdout, cliCpu, dbCpu: mariadb ? cpuMs(mariadb) - dbBefore : 0, wall };
}

async function prune(name: string, day: number, cli: string): Promise<void> {
  const archiveDir = mkdtempSync(join(tmpdir(), 'archive-day-'));
  const archive = !process.argv.includes('--no-archive');
  const work = () => runPrune(name, day, cli, archive ? archiveDir : null);
  let p: PruneRun;
  let b1: Beside<PruneRun> | undefined;
  if (process.argv.includes('--b1')) {
    const { proc, api, key } = await startB1(name, cli);
    try {
      // As in B8P: B1 10 s alone and 10 s from the prune's own start, and the p99 over its own run against without.
      b1 = await b1Beside(api, key, 10, 10, async () => {
        const result = await work();
        const ended = performance.now();
        const seconds = result.code === 0 ? Number(JSON.parse(result.stdout).seconds) : result.wall;
        return { result, window: { from: ended - seconds * 1000, to: ended } };
      });
      p = b1.result;
    } finally {
      await stop(proc);
    }
  } else p = await work();
  const bytes = readdirSync(archiveDir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .reduce((n, e) => n + statSync(join(e.parentPath, e.name)).size, 0);
  rmSync(archiveDir, { recursive: true, force: true });
  if (p.code !== 0) throw new Error(`db prune ended with ${p.code}: ${p.stdout}`);
  const out = JSON.parse(p.stdout);
  const rows = archive ? Number(out.archived_rows) : Number(out.removed.messages);
  const perK = (ms: number) => ((ms / rows) * 1000).toFixed(0);
  console.log(
    JSON.stringify({
      cli,
      day,
      dropped: out.partitions_dropped,
      messages: out.removed.messages,
      archived_rows: rows,
      prune_seconds: out.seconds,
      process_seconds: Math.round(p.wall * 10) / 10,
      rows_per_second: Math.round(rows / out.seconds),
      archive_bytes: bytes,
      cli_cpu_ms_per_1000_rows: perK(p.cliCpu),
      mariadb_cpu_ms_per_1000_rows: perK(p.dbCpu),
      ...(b1 && {
        b1_p99_run_ms: b1.run,
        b1_p99_alone_ms: b1.alone,
        b1_ratio: Math.round((b1.run / b1.alone) * 100) / 100,
        b1_p99_own_window_ms: b1.p99,
        b1_p99_without_ms: b1.without,
        b1_own_window_ratio: Math.round((b1.p99 / b1.without) * 100) / 100,
        b1_p99_whole_cli_ms: b1.p99Whole,
        b1_requests: b1.counts,
        b1_failed: b1.failed,
      }),
      loadavg: readFileSync('/proc/loadavg', 'utf8').trim(),
    }),
  );
}

async function drop(name: string): Promise<void> {
  const db = await createConnection({ host: '127.0.0.1', user: 'root', timezone: 'Z' });
  try {
    await dropBenchState(db, name);
  } finally {
    await db.end();
  }
}

const [, , what, name, day] = process.argv;
const done =
  what === 'seed'
    ? seed(name)
    : what === 'prune'
      ? prune(name, Number(day), flag('--cli', 'dist/cli.js'))
      : what === 'drop'
        ? drop(name)
        : Promise.reject(new Error('seed <db> | prune <db> <day> [--cli path] | drop <db>'));
done.then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
