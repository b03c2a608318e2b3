import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import type { Connection } from 'mysql2/promise';
import { freePort, sleep } from '../test/support/local-state.js';

export { freePort, sleep };

/** One figure as the bench prints it, with its bar. */
export interface BenchRow {
  id: string;
  metric: string;
  value: number;
  unit: string;
  baseline?: number;
  ratio?: number;
  bar: string;
  ok: boolean;
}

/** Runs one admin command with `--json` against the given settings and answers its JSON. */
export function cliJson(env: Record<string, string>, ...args: string[]): any {
  const out = execFileSync(process.execPath, ['dist/cli.js', ...args, '--json'], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  return JSON.parse(out);
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/** `nodeArgs` go to Node itself, before the script (`--cpu-prof`). */
export function startNode(
  script: string,
  args: string[],
  env: Record<string, string>,
  nodeArgs: string[] = [],
): ChildProcess {
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', (d: Buffer) => {
    const text = d.toString();
    if (/error|fail/i.test(text)) process.stderr.write(`[${script}] ${text}`);
  });
  return child;
}

export async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => (clearTimeout(t), resolve()));
    child.kill('SIGTERM');
  });
}

export async function waitHttp(url: string, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      const r = await fetch(url);
      if (r.status === 200) return;
    } catch {
      /* not up yet */
    }
    await sleep(100);
  }
  throw new Error(`${url} did not come up`);
}

/** Samples a process's resident memory every 50 ms; `peak` is the largest seen since the last reset. */
export class RssSampler {
  peakMb = 0;
  private timer?: NodeJS.Timeout;

  constructor(private readonly pid: number) {}

  current(): number {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${this.pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  }

  start(): void {
    this.peakMb = this.current();
    this.timer = setInterval(() => {
      this.peakMb = Math.max(this.peakMb, this.current());
    }, 50);
  }

  stop(): number {
    clearInterval(this.timer);
    return this.peakMb;
  }
}

/** The settings of a bench's processes on the databases and queues named `name`. */
export function benchEnv(name: string, env: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: `mysql://root@127.0.0.1:3306/${name}`,
    QUEUE_PREFIX: name,
    LOG_LEVEL: 'error',
    APP_ENV: 'bench',
    // Any APP_ENV but development and test needs its own; every process of a run shares it.
    SERVER_SECRET: `bench-only-server-secret-of-this-run-${name}`,
    // No SMPP listener unless the bench asks for one: the default port is often another's.
    SMPP_SERVER_PORT: '0',
    ...env,
  };
}

/**
 * A bench's own API process: a database and queue prefix named after the bench (the API creates
 * and migrates the database at start), its environment for the CLI and any worker, and the CLI.
 * `apiEnv` is for the API process alone.
 */
export async function startBenchApi(
  tag: string,
  env: Record<string, string>,
  apiEnv: Record<string, string> = {},
) {
  const name = `bench_${tag}_${process.pid}`;
  const port = await freePort();
  const fullEnv = benchEnv(name, env);
  return {
    name,
    port,
    api: `http://127.0.0.1:${port}`,
    env: fullEnv,
    cli: (...args: string[]): any => cliJson(fullEnv, ...args),
    // autocannon keeps writing on a connection the server asked to close (`Connection: close`
    // after HTTP_MAX_REQUESTS_PER_SOCKET requests), which Node then answers 503 without reading:
    // a real client reconnects, so the cap is lifted where a bench holds one connection long.
    proc: startNode('dist/main.js', [], {
      ...fullEnv,
      PORT: String(port),
      HTTP_MAX_REQUESTS_PER_SOCKET: '0',
      ...apiEnv,
    }),
  };
}

/**
 * A process's CPU time so far (user + system), in milliseconds, from `/proc/<pid>/stat`
 * (fields 14 and 15, in clock ticks of 10 ms on Linux).
 */
/**
 * CPU time of several processes sampled every 50 ms, so that the CPU each spent over a span known
 * only afterwards (first hand-over to last receipt, read from the database) can be told.
 */
export class CpuSampler {
  private readonly samples: Array<{ at: number; ms: number[] }> = [];
  private timer?: NodeJS.Timeout;

  constructor(private readonly pids: number[]) {}

  start(): void {
    const take = () => {
      try {
        this.samples.push({ at: Date.now(), ms: this.pids.map((p) => cpuMs(p)) });
      } catch {
        /* a process ended */
      }
    };
    take();
    this.timer = setInterval(take, 50);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** CPU ms of each process from the last sample at or before `from` to the first at or after `to`. */
  between(from: number, to: number): number[] {
    const first = [...this.samples].reverse().find((s) => s.at <= from) ?? this.samples[0];
    const last = this.samples.find((s) => s.at >= to) ?? this.samples[this.samples.length - 1];
    return this.pids.map((_, i) => last.ms[i] - first.ms[i]);
  }
}

export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces; the fields after it are plain numbers.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The pid of the running process whose command name is `name` (`mariadbd`, `redis-server`), if one runs here. */
export function pidOf(name: string): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name) return Number(entry);
    } catch {
      /* gone meanwhile */
    }
  }
  return undefined;
}

/**
 * Drops what a bench's API left behind under `name`: its three databases and its Redis keys
 * (queues with the jobs no worker took, rate-limit counters), which would otherwise pile up in
 * the machine's Redis from run to run and slow the runs after.
 */
export async function dropBenchState(db: Connection, name: string): Promise<void> {
  for (const suffix of ['', '_log', '_notification'])
    await db.query(`DROP DATABASE IF EXISTS \`${name}${suffix}\``).catch(() => undefined);
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
  });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${name}:*`, 'COUNT', 1000);
      if (keys.length) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } catch {
    // Nothing to clean when Redis is away.
  } finally {
    redis.disconnect();
  }
}

/**
 * Accounts `bench_<name>` with ample SMS credit at 0.01 a unit, each with a key of no practical
 * rate limit; answers the keys by name.
 */
export function benchAccounts<K extends string>(
  cli: (...args: string[]) => any,
  names: readonly K[],
): Record<K, string> {
  const keys = {} as Record<K, string>;
  for (const who of names) {
    const username = `bench_${who}`;
    cli('accounts', 'create', '--username', username, '--password', 'load-test-secret-1');
    cli('accounts', 'credit', '--username', username, '--channel', 'sms', '--amount', '100000000');
    cli('accounts', 'price', '--username', username, '--channel', 'sms', '--cost-per-unit', '0.01');
    keys[who] = cli(
      'keys',
      'create',
      '--username',
      username,
      '--name',
      'bench',
      '--rate-limit',
      '1000000/1',
    ).key;
  }
  return keys;
}

/**
 * One SMS request of `to(run)` per account and run, the accounts in turn within each run so
 * drift hits them alike; each request's time to its answer, by account. `seen` gets each answer.
 */
export async function interleavedSends<K extends string>(
  api: string,
  keys: Record<K, string>,
  runs: number,
  to: (run: number) => string[],
  seen: (who: K, data: Array<{ status: string; reason?: string }>) => void = () => {},
): Promise<Record<K, number[]>> {
  const names = Object.keys(keys) as K[];
  const acks = Object.fromEntries(names.map((who) => [who, [] as number[]])) as Record<K, number[]>;
  for (let i = 0; i < runs; i++) {
    for (const who of names) {
      const t0 = performance.now();
      const res = await fetch(`${api}/api/v1/json/bulk/sms`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': keys[who] },
        body: JSON.stringify({ from: 'BENCH', to: to(i), message: 'Bulk notice' }),
      });
      const body = (await res.json()) as { data: Array<{ status: string; reason?: string }> };
      acks[who].push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`bench_${who}: status ${res.status}`);
      seen(who, body.data);
    }
  }
  return acks;
}
