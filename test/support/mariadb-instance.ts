import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection, type Connection } from 'mysql2/promise';
import { killOnExit } from './local-state.js';
import { freePort } from './redis-instance.js';

const MARIADBD =
  ['/usr/sbin/mariadbd', '/usr/sbin/mysqld', '/usr/bin/mariadbd'].find((p) => existsSync(p)) ?? 'mariadbd';
const INSTALL_DB = 'mariadb-install-db';

/** Small and quick: a throw-away server for fault tests, durable commits kept (a crash must not lose an acknowledged send). */
const SERVER_FLAGS = [
  '--skip-log-bin',
  '--skip-name-resolve',
  '--innodb-buffer-pool-size=64M',
  '--innodb-log-file-size=16M',
  '--innodb-flush-log-at-trx-commit=1',
  '--performance-schema=OFF',
  '--max-connections=300',
];

export interface MariaDbOptions {
  /** Extra mariadbd flags, e.g. `--wait-timeout=5`. */
  flags?: string[];
}

function run(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} failed: ${err.message}\n${stdout}\n${stderr}`));
      else resolve();
    });
  });
}

async function answers(port: number): Promise<boolean> {
  const conn = await createConnection({ host: '127.0.0.1', port, user: 'root', connectTimeout: 1000 });
  try {
    await conn.query('SELECT 1');
    return true;
  } finally {
    await conn.end().catch(() => undefined);
  }
}

/**
 * A MariaDB server of the test's own: a fresh data directory in the temp dir, on a free
 * loopback port, root without a password. The test can stop it (SIGTERM: a clean shutdown that
 * kills the connections in flight; SIGKILL: a crash, InnoDB recovers at the next start), start it
 * again on the same port and data, and destroy it (data directory removed).
 */
export class MariaDbInstance {
  private proc?: ChildProcess;
  private readonly dir: string;

  private constructor(
    readonly port: number,
    private readonly options: MariaDbOptions,
  ) {
    this.dir = mkdtempSync(join(tmpdir(), 'bm-mariadb-'));
  }

  static async start(options: MariaDbOptions = {}): Promise<MariaDbInstance> {
    const m = new MariaDbInstance(await freePort(), options);
    try {
      await run(INSTALL_DB, [
        '--no-defaults',
        `--datadir=${m.datadir}`,
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
        '--skip-name-resolve',
        ...(m.asRoot ? ['--user=root'] : []),
        '--innodb-log-file-size=16M',
      ]);
      await m.start();
    } catch (err) {
      await m.destroy();
      throw err;
    }
    return m;
  }

  get datadir(): string {
    return join(this.dir, 'data');
  }

  /** `mysql://root@127.0.0.1:<port>`; add `/<database>` for a DATABASE_URL. */
  get url(): string {
    return `mysql://root@127.0.0.1:${this.port}`;
  }

  databaseUrl(database: string): string {
    return `${this.url}/${database}`;
  }

  get running(): boolean {
    return !!this.proc && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** Its pid while running (for tests that want to signal it themselves). */
  get pid(): number | undefined {
    return this.running ? this.proc?.pid : undefined;
  }

  private get asRoot(): boolean {
    return typeof process.getuid === 'function' && process.getuid() === 0;
  }

  /** A plain connection to the server (no database selected unless given). */
  connect(database?: string): Promise<Connection> {
    return createConnection({
      host: '127.0.0.1',
      port: this.port,
      user: 'root',
      database,
      timezone: 'Z',
      supportBigNumbers: true,
      bigNumberStrings: true,
    });
  }

  async start(): Promise<void> {
    if (this.running) return;
    const proc = spawn(
      MARIADBD,
      [
        '--no-defaults',
        `--datadir=${this.datadir}`,
        `--socket=${join(this.dir, 'mysqld.sock')}`,
        `--pid-file=${join(this.dir, 'mysqld.pid')}`,
        `--log-error=${join(this.dir, 'error.log')}`,
        `--tmpdir=${this.dir}`,
        `--port=${this.port}`,
        '--bind-address=127.0.0.1',
        ...(this.asRoot ? ['--user=root'] : []),
        ...SERVER_FLAGS,
        ...(this.options.flags ?? []),
      ],
      { stdio: 'ignore' },
    );
    this.proc = killOnExit(proc);
    const until = Date.now() + 30_000;
    while (Date.now() < until) {
      if (proc.exitCode !== null || proc.signalCode !== null) {
        throw new Error(
          `mariadbd exited at start (${proc.exitCode ?? proc.signalCode}):\n${this.errorLog(20)}`,
        );
      }
      if (await answers(this.port).catch(() => false)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`mariadbd did not answer on :${this.port} within 30 s:\n${this.errorLog(20)}`);
  }

  /** SIGTERM: a clean shutdown (open transactions rolled back, connections dropped); SIGKILL: a crash. */
  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    const p = this.proc;
    this.proc = undefined;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => p.kill('SIGKILL'), 30_000);
      p.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
      p.kill(signal);
    });
  }

  /** Stops it, leaves it down for `downMs`, starts it again on the same port and data. */
  async restart(opts: { signal?: 'SIGTERM' | 'SIGKILL'; downMs?: number } = {}): Promise<{ downMs: number }> {
    const t0 = Date.now();
    await this.stop(opts.signal ?? 'SIGTERM');
    if (opts.downMs) await new Promise((r) => setTimeout(r, opts.downMs));
    await this.start();
    return { downMs: Date.now() - t0 };
  }

  /** The last lines of the server's error log, for failure messages. */
  errorLog(lines = 30): string {
    const file = join(this.dir, 'error.log');
    return existsSync(file)
      ? readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')
      : '(no error log)';
  }

  /** Stops it (a crash is fine: the data goes) and removes the data directory. */
  async destroy(): Promise<void> {
    await this.stop('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}
