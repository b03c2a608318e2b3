/**
 * B8: pruning old messages while B1's load runs; B9: what a message costs in MySQL and in Redis.
 * Runs inside `npm run bench`, or alone:
 *   npm run build && npm run build:bench && node dist/bench-build/bench/retention.js [--quick] [--messages N]
 *     [--singles N] [--bulk N] [--b9-only] [--factors 24,48,96 [--rounds 7]]
 *
 * B9 first, on an empty database: 2,000 single-recipient sends (--quick: 1,000, and 5,000 in the bulk request) (with a callback_url) are queued
 * with no worker running, and the Redis keys of the queue prefix are measured (MEMORY USAGE of
 * each) before and after: bytes per queued message; the same for one 10,000-recipient request.
 * Then a worker (sandbox transport, receipts after 10 ms, callbacks to a local sink) takes every
 * message to DELIVERED, and the three databases' tables are measured (index pages in use, see
 * dbBytes): MySQL bytes per message, for the single sends and for the bulk
 * request; and the extents allocated (DATA_LENGTH + INDEX_LENGTH) over both.
 *
 * B8 then seeds N old final-and-not messages (default 5,000,000; --quick 200,000; `--messages N`)
 * with one event each straight into MySQL, and alternates B1 runs (50 connections of
 * single-recipient sends for 10 s) without and with a `db prune` running beside them, each run
 * once InnoDB has purged what the one before deleted: B1's p99 with the prune against without
 * (bar: within 1.2×; medians of nine pairs), the prune's rate under that load (over the nine
 * runs together), and the prune's rate alone when it finishes the rest.
 *
 * `--factors F1,F2,...` compares busy factors instead: in each of `--rounds` rounds (default 7) a
 * run without a prune and one beside a prune at each factor, in an order that rotates from round
 * to round; each factor's ratio is the median over the rounds of its p99 against the same
 * round's run without.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { createConnection, type Connection } from 'mysql2/promise';
import { seedMessages } from '../test/support/message-seed.js';
import {
  median,
  sleep,
  startBenchApi,
  startNode,
  stop,
  waitHttp,
  type BenchRow,
  dropBenchState,
} from './lib.js';

/**
 * B8's pairs of B1 runs, without and with a prune: a single 10 s run's p99 moves by a fifth
 * from run to run on a loaded 2-core machine, and the median of five pairs by a tenth.
 */
const RUNS = 9;
/** `--factors`: rounds of a run without and one beside a prune at each factor. */
const FACTOR_ROUNDS = 7;
/** How long B8 waits at most for InnoDB's purge to catch up before a run. */
const PURGE_WAIT_MS = 60_000;

/**
 * Bytes of the three databases' tables, two ways. `used`: the index pages (every level, the
 * clustered index holding the rows) the tables occupy, counted in the buffer pool after each
 * index has been read through, times the page size: pages in use, not the extents allocated,
 * which grow a megabyte per index at a time and would swamp a few thousand messages. (InnoDB's
 * persistent statistics are no help: on MariaDB 10.11 a second ANALYZE TABLE leaves
 * `n_leaf_pages` as the first one found it.) The buffer pool must hold the bench's tables, which
 * B9's few thousand messages do. `allocated`: DATA_LENGTH + INDEX_LENGTH, the extents reserved,
 * what the disk holds once the tables are large.
 */
async function dbBytes(db: Connection, name: string): Promise<{ used: number; allocated: number }> {
  const schemas = [name, `${name}_log`, `${name}_notification`];
  const [indexes] = (await db.query(
    `SELECT DISTINCT s.TABLE_SCHEMA AS s, s.TABLE_NAME AS t, s.INDEX_NAME AS i
       FROM information_schema.STATISTICS s JOIN information_schema.TABLES t
         ON t.TABLE_SCHEMA = s.TABLE_SCHEMA AND t.TABLE_NAME = s.TABLE_NAME
      WHERE s.TABLE_SCHEMA IN (?) AND t.ENGINE = 'InnoDB' AND s.INDEX_TYPE = 'BTREE'`,
    [schemas],
  )) as any;
  for (const { s, t, i } of indexes)
    await db.query(`SELECT COUNT(*) FROM \`${s}\`.\`${t}\` FORCE INDEX (\`${i}\`)`);
  const names = [
    ...new Set((indexes as Array<{ s: string; t: string }>).map(({ s, t }) => `\`${s}\`.\`${t}\``)),
  ];
  const [[{ pages }]] = (await db.query(
    `SELECT COUNT(*) AS pages FROM information_schema.INNODB_BUFFER_PAGE
      WHERE PAGE_TYPE = 'INDEX' AND TABLE_NAME IN (?)`,
    [names],
  )) as any;
  const [[{ size, allocated }]] = (await db.query(
    `SELECT @@innodb_page_size AS size, SUM(DATA_LENGTH + INDEX_LENGTH) AS allocated
       FROM information_schema.TABLES WHERE TABLE_SCHEMA IN (?)`,
    [schemas],
  )) as any;
  return { used: Number(pages) * Number(size), allocated: Number(allocated) };
}

/** Bytes Redis holds under the prefix: MEMORY USAGE of every key (other tenants of the server are not counted). */
async function redisBytes(redis: Redis, prefix: string): Promise<number> {
  let total = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    for (const k of keys) total += Number((await redis.call('MEMORY', 'USAGE', k, 'SAMPLES', '0')) ?? 0);
    cursor = next;
  } while (cursor !== '0');
  return total;
}

export interface RetentionBenchSizes {
  /** B8's old messages. */
  messages?: number;
  /** B9's single-recipient sends and bulk request size. */
  singles?: number;
  bulk?: number;
  /** false: B9 alone. */
  b8?: boolean;
  /** B8 compares these busy factors (RETENTION_PAUSE_FACTOR) instead of the bench's pace. */
  factors?: number[];
  /** Rounds of the comparison (default FACTOR_ROUNDS). */
  rounds?: number;
}

export async function benchRetention(quick: boolean, sizes: RetentionBenchSizes = {}): Promise<BenchRow[]> {
  const { messages, b8 = true } = sizes;
  const count = messages ?? (quick ? 200_000 : 5_000_000);
  const seconds = quick ? 5 : 10;
  const sink = createServer((_, res) => res.writeHead(204).end());
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  const hooks = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/dlr`;
  const settings = {
    RUN_WORKERS: 'false',
    RATE_LIMIT_DEFAULT: '1000000/1',
    MAX_RECIPIENTS: '100000',
    SANDBOX_DELIVERY_DELAY_MS: '10',
    CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
    // The prune's pace, where the bench is run to compare paces (the row names what was used).
    ...Object.fromEntries(
      ['RETENTION_BATCH', 'RETENTION_PAUSE_MS', 'RETENTION_PAUSE_FACTOR']
        .filter((k) => process.env[k] !== undefined)
        .map((k) => [k, process.env[k]!]),
    ),
  };
  const { name, api, cli, env, proc } = await startBenchApi('retention', settings);
  const rows: BenchRow[] = [];
  await waitHttp(`${api}/health/ready`);
  const db = await createConnection({ host: '127.0.0.1', user: 'root', database: name, timezone: 'Z' });
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  let worker: ReturnType<typeof startNode> | undefined;
  try {
    cli('accounts', 'create', '--username', 'keeper', '--password', 'retention-bench-secret-1');
    cli('accounts', 'credit', '--username', 'keeper', '--channel', 'sms', '--amount', '100000000');
    cli('accounts', 'price', '--username', 'keeper', '--channel', 'sms', '--cost-per-unit', '0.01');
    const key = cli('keys', 'create', '--username', 'keeper', '--name', 'bench', '--rate-limit', '1000000/1')
      .key as string;
    const url = `${api}/api/v1/json/bulk/sms`;
    const headers = { 'content-type': 'application/json', 'x-api-key': key };
    const single = { from: 'BENCH', to: '260971234567', message: 'Your code is 123456', callback_url: hooks };
    const count_ = async (sql: string) => Number(((await db.query(sql)) as any)[0][0].n);
    const settle = async () => {
      worker = startNode('dist/worker.js', [], env);
      const until = Date.now() + 600_000;
      // Done when every message is final and the callback outbox is empty, or has not moved for
      // 5 s (a worker stopped between a callback and its row's deletion leaves the row behind).
      let last = -1;
      let still = 0;
      while (Date.now() < until) {
        const waiting = await count_(
          "SELECT COUNT(*) AS n FROM messages WHERE status IN ('ACKNOWLEDGED','SENT','SCHEDULED')",
        );
        const outbox = await count_(`SELECT COUNT(*) AS n FROM \`${name}_notification\`.callback_outbox`);
        still = outbox === last ? still + 1 : 0;
        last = outbox;
        if (waiting === 0 && (outbox === 0 || still >= 10)) break;
        await sleep(500);
      }
      await stop(worker);
      worker = undefined;
      await sleep(600); // the request-log writer's last flush
    };

    // B9: Redis per queued message, then MySQL per delivered message; single sends, then a bulk request.
    const SINGLES = sizes.singles ?? (quick ? 1000 : 2000);
    const BULK = sizes.bulk ?? (quick ? 5000 : 10_000);
    const mysql0 = await dbBytes(db, name);
    const redis0 = await redisBytes(redis, name);
    const sent = await autocannon({
      url,
      method: 'POST',
      connections: 20,
      amount: SINGLES,
      headers,
      body: JSON.stringify(single),
    });
    if (sent['2xx'] !== SINGLES) throw new Error(`B9: ${sent['2xx']} of ${SINGLES} sends accepted`);
    const redis1 = await redisBytes(redis, name);
    await settle();
    const mysql1 = await dbBytes(db, name);
    const redisBulk0 = await redisBytes(redis, name);
    const bulk = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        from: 'BENCH',
        to: Array.from({ length: BULK }, (_, i) => String(260_972_000_000 + i)),
        message: 'Our shop opens at nine tomorrow',
        callback_url: hooks,
      }),
    });
    if (bulk.status !== 200) throw new Error(`B9: the bulk request answered ${bulk.status}`);
    const redis2 = await redisBytes(redis, name);
    await settle();
    const mysql2 = await dbBytes(db, name);
    process.stderr.write(
      `B9 raw: MySQL in use ${mysql0.used} → ${mysql1.used} → ${mysql2.used} B, allocated ${mysql0.allocated} → ${mysql1.allocated} → ${mysql2.allocated} B; Redis ${redis0} → ${redis1}, ${redisBulk0} → ${redis2} B\n`,
    );
    const row = (metric: string, value: number, unit: string): BenchRow => ({
      id: 'B9',
      metric,
      value: Math.round(value),
      unit,
      bar: '',
      ok: true,
    });
    rows.push(
      row('Redis memory per queued message, single-recipient sends', (redis1 - redis0) / SINGLES, 'B'),
    );
    rows.push(
      row(
        `Redis memory per queued message, one ${BULK.toLocaleString('en')}-recipient request`,
        (redis2 - redisBulk0) / BULK,
        'B',
      ),
    );
    rows.push(
      row(
        'MySQL bytes per delivered message, single-recipient sends',
        (mysql1.used - mysql0.used) / SINGLES,
        'B',
      ),
    );
    rows.push(
      row(
        `MySQL bytes per delivered message, one ${BULK.toLocaleString('en')}-recipient request`,
        (mysql2.used - mysql1.used) / BULK,
        'B',
      ),
    );
    rows.push(
      row(
        'MySQL bytes allocated per delivered message, single sends then the request',
        (mysql2.allocated - mysql0.allocated) / (SINGLES + BULK),
        'B',
      ),
    );
    if (!b8) return rows;

    // B8: old messages, then B1 without and with a prune beside it.
    const [[account]] = (await db.query("SELECT id FROM accounts WHERE username = 'keeper'")) as any;
    const start = new Date(Date.now() - 400 * 86_400_000);
    const t0 = performance.now();
    await seedMessages((sql, params) => db.query(sql, params), {
      accountId: String(account.id),
      count,
      firstId: BigInt(start.getTime()) * 1_000_000n,
      start,
      perRequest: 1000,
      stepMs: 1000,
    });
    await db.query(
      `INSERT INTO message_events (message_id, status, occurred_at)
       SELECT id, status, created_at FROM messages WHERE created_at < ?`,
      [new Date(Date.now() - 100 * 86_400_000)],
    );
    const seeded = await count_(
      "SELECT COUNT(*) AS n FROM messages WHERE status NOT IN ('ACKNOWLEDGED','SENT','SCHEDULED') AND created_at < NOW() - INTERVAL 100 DAY",
    );
    rows.push({
      id: 'B8',
      metric: `seed ${count.toLocaleString('en')} old messages with an event each`,
      value: Math.round(count / ((performance.now() - t0) / 1000)),
      unit: 'rows/s',
      bar: '',
      ok: true,
    });
    const b1 = () =>
      autocannon({
        url,
        method: 'POST',
        connections: 50,
        duration: seconds,
        headers,
        body: JSON.stringify({ from: 'BENCH', to: '260971234567', message: 'Your code is 123456' }),
      });
    const before = new Date(Date.now() - 90 * 86_400_000).toISOString();
    // The prune's progress is read from its own stderr ("removed N message(s) so far", once a
    // second), not counted in MySQL: a COUNT over millions of old rows reads their index through
    // the buffer pool and evicts the sends' pages just before the run it would measure.
    const prune = async (factor?: number) => {
      const child = startNode(
        'dist/cli.js',
        ['db', 'prune', '--before', before, '--json'],
        factor === undefined ? env : { ...env, RETENTION_PAUSE_FACTOR: String(factor) },
      );
      const progress = { removed: 0 };
      child.stderr?.on('data', (d: Buffer) => {
        for (const m of d.toString().matchAll(/removed (\d+) message/g)) progress.removed = Number(m[1]);
      });
      // The load starts once the prune has started removing (a CLI process takes seconds to start here).
      const until = Date.now() + 120_000;
      while (progress.removed === 0 && child.exitCode === null && Date.now() < until) await sleep(100);
      if (progress.removed === 0) throw new Error('B8: the prune removed nothing');
      return { child, progress };
    };
    // A run starts once InnoDB has purged what the run before left (the prune's deletions above
    // all): a run without a prune must not pay for the one before it.
    const purged = async () => {
      const history = async () =>
        Number(
          (
            (await db.query(
              "SELECT COUNT AS n FROM information_schema.INNODB_METRICS WHERE NAME = 'trx_rseg_history_len'",
            )) as any
          )[0][0]?.n ?? 0,
        );
      const until = Date.now() + PURGE_WAIT_MS;
      while ((await history()) > 1000 && Date.now() < until) await sleep(250);
    };
    await b1(); // warm-up
    // What runs beside each B1 run: null, no prune; undefined, a prune at the bench's pace; a
    // number, a prune at that busy factor (`--factors`). The rate beside B1 is counted over all
    // of a condition's runs together: at the busy pace a batch comes every several seconds, so
    // one 10 s run holds one or two of them.
    const { factors } = sizes;
    const conditions: Array<number | null | undefined> = factors ? [null, ...factors] : [null, undefined];
    const runs = new Map(conditions.map((c) => [c, { p99: [] as number[], removed: 0, seconds: 0 }]));
    const rounds = factors ? (sizes.rounds ?? FACTOR_ROUNDS) : RUNS;
    for (let i = 0; i < rounds; i++) {
      // Several factors take turns in an order that rotates from round to round, so none is
      // always the one run just after a prune; a pair keeps B8's order, without then with.
      const order = factors ? conditions.map((_, j) => conditions[(i + j) % conditions.length]) : conditions;
      for (const c of order) {
        await purged();
        const pruner = c === null ? undefined : await prune(c);
        const left0 = pruner?.progress.removed ?? 0;
        const p0 = performance.now();
        const r = await b1();
        const got = runs.get(c)!;
        got.p99.push(r.latency.p99);
        if (!pruner) continue;
        got.seconds += (performance.now() - p0) / 1000;
        got.removed += pruner.progress.removed - left0;
        await stop(pruner.child);
        if (r.non2xx || r.errors) throw new Error(`B8: ${r.non2xx + r.errors} sends failed beside the prune`);
      }
    }
    const without = runs.get(null)!.p99;
    const rateOf = (c: number | undefined) => Math.round(runs.get(c)!.removed / runs.get(c)!.seconds);
    const label = (c: number | undefined) => (c === undefined ? 'with a prune' : `at factor ${c}`);
    process.stderr.write(
      `B8 per ${factors ? 'round' : 'pair'}, B1 p99 without: ${without.join(', ')} ms; ${conditions
        .filter((c) => c !== null)
        .map((c) => `${label(c)}: ${runs.get(c)!.p99.join(', ')} ms, ${rateOf(c)} msg/s pruned`)
        .join('; ')}\n`,
    );
    const p99Without = median(without);
    if (factors) {
      // Each factor against the run without of the same round, the median of those ratios.
      for (const f of factors) {
        const p99s = runs.get(f)!.p99;
        const ratio = median(p99s.map((p, i) => p / without[i]));
        rows.push({
          id: 'B8',
          metric: `B1 p99 beside a prune at RETENTION_PAUSE_FACTOR=${f} (ratio: median of ${rounds} rounds)`,
          value: median(p99s),
          unit: 'ms',
          baseline: p99Without,
          ratio: Math.round(ratio * 100) / 100,
          bar: '≤ 1.2× without',
          ok: ratio <= 1.2,
        });
        rows.push({
          id: 'B8',
          metric: `prune rate beside B1 at RETENTION_PAUSE_FACTOR=${f}`,
          value: rateOf(f),
          unit: 'msg/s',
          bar: '',
          ok: true,
        });
      }
    } else {
      const p99With = median(runs.get(undefined)!.p99);
      rows.push({
        id: 'B8',
        metric: 'B1 p99 with a prune running beside it',
        value: p99With,
        unit: 'ms',
        baseline: p99Without,
        ratio: Math.round((p99With / p99Without) * 100) / 100,
        bar: '≤ 1.2× without',
        ok: p99With / p99Without <= 1.2,
      });
      rows.push({
        id: 'B8',
        metric: `prune rate beside B1 (${
          ['RETENTION_BATCH', 'RETENTION_PAUSE_MS', 'RETENTION_PAUSE_FACTOR']
            .filter((k) => k in settings)
            .map((k) => `${k}=${settings[k as keyof typeof settings]}`)
            .join(' ') || 'pace at its defaults'
        })`,
        value: rateOf(undefined),
        unit: 'msg/s',
        bar: '',
        ok: true,
      });
    }
    // Alone: the prune's own rate on an idle API, over as long as a B1 run (not to the end: at
    // 5,000,000 messages that would take most of an hour).
    const alone = await prune();
    const a0 = performance.now();
    const aloneRemoved0 = alone.progress.removed;
    await sleep(seconds * 1000);
    const aloneRemoved = alone.progress.removed - aloneRemoved0;
    const aloneSeconds = (performance.now() - a0) / 1000;
    await stop(alone.child);
    const left = await count_(
      `SELECT COUNT(*) AS n FROM messages WHERE created_at < NOW() - INTERVAL 100 DAY AND status NOT IN ('ACKNOWLEDGED','SENT','SCHEDULED')`,
    );
    rows.push({
      id: 'B8',
      metric: `prune rate alone (${left.toLocaleString('en')} messages left of ${seeded.toLocaleString('en')})`,
      value: Math.round(aloneRemoved / aloneSeconds),
      unit: 'msg/s',
      bar: '',
      ok: aloneRemoved > 0,
    });
  } finally {
    await stop(worker);
    await stop(proc);
    sink.close();
    redis.disconnect();
    await dropBenchState(db, name);
    await db.end();
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (flag: string) => {
    const at = process.argv.indexOf(flag);
    return at > 0 ? Number(process.argv[at + 1]) : undefined;
  };
  benchRetention(process.argv.includes('--quick'), {
    messages: arg('--messages'),
    singles: arg('--singles'),
    bulk: arg('--bulk'),
    b8: !process.argv.includes('--b9-only'),
    factors: process.argv.includes('--factors')
      ? process.argv[process.argv.indexOf('--factors') + 1].split(',').map(Number)
      : undefined,
    rounds: arg('--rounds'),
  }).then(
    (rows) => {
      for (const r of rows)
        console.log(
          `${r.id}  ${r.metric.padEnd(70)} ${`${r.value} ${r.unit}`.padEnd(14)} ${r.baseline === undefined ? '' : `(without: ${r.baseline}, ${r.ratio}×)`} ${r.bar} ${r.ok ? 'yes' : 'NO'}`,
        );
      process.exit(0);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
