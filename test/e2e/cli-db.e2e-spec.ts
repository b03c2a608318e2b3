import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createConnection } from 'mysql2/promise';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-in-process.js';
// Not test-app.js: loading the app's module registers data source names, and each CLI context
// run in process would warn of a duplicate on its output.
import { dropLocalState as dropTestState } from '../support/local-state.js';
import { MYSQL_ROOT, uniqueName } from '../support/test-env.js';

/** The compiled CLI, run from a directory that is not the project (no .env there). */
const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const ELSEWHERE = fileURLToPath(new URL('../../test/', import.meta.url));

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  return cliIn(ELSEWHERE, env, ...args);
}

function cliIn(cwd: string, env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { PATH: process.env.PATH ?? '', ...env }, cwd, timeout: 25_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

/**
 * The same command through the CLI module in this process, for refusals decided before any
 * database is created; creating, migrating and reading .env run the compiled binary above.
 */
function inProcess(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  return runCli(env, args);
}

function envFor(name: string, password = ''): Record<string, string> {
  const auth = password ? `root:${password}` : 'root';
  return {
    DATABASE_URL: `mysql://${auth}@127.0.0.1:3306/${name}`,
    LOG_DATABASE_URL: `${MYSQL_ROOT}/${name}_log`,
    NOTIFICATION_DATABASE_URL: `${MYSQL_ROOT}/${name}_notification`,
  };
}

async function databasesNamed(name: string): Promise<string[]> {
  const conn = await createConnection({ host: '127.0.0.1', user: 'root' });
  try {
    const [rows] = await conn.query(
      'SELECT SCHEMA_NAME AS s FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE ?',
      [`${name}%`],
    );
    return (rows as Array<{ s: string }>).map((r) => r.s).sort();
  } finally {
    await conn.end();
  }
}

describe('the CLI and the databases', () => {
  const names: string[] = [];
  const fresh = () => {
    const n = uniqueName();
    names.push(n);
    return n;
  };

  afterAll(async () => {
    for (const n of names) await dropTestState(n);
  });

  it('refuses a data command on a missing database, naming it and db migrate, and creates nothing', async () => {
    const name = fresh();
    for (const args of [
      ['accounts', 'list', '--json'],
      ['keys', 'list'],
      ['logs', 'prune'],
    ]) {
      const r = await inProcess(envFor(name), ...args);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(`mysql://root@127.0.0.1:3306/${name}`);
      expect(r.stderr).toContain('DATABASE_URL');
      expect(r.stderr).toContain('does not exist');
      expect(r.stderr).toContain('db migrate');
    }
    expect(await databasesNamed(name)).toEqual([]);
  }, 60_000);

  it('hides the password of the URL it names', async () => {
    const name = fresh();
    const r = await inProcess(
      { ...envFor(name, 's3cret-pw'), DATABASE_URL: `mysql://root:s3cret-pw@127.0.0.1:1/${name}` },
      'accounts',
      'list',
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`mysql://root:***@127.0.0.1:1/${name}`);
    expect(r.stderr).toContain('cannot reach MySQL');
    expect(r.stderr).not.toContain('s3cret-pw');
  });

  it('refuses a database that exists but is not migrated, listing what is pending', async () => {
    const name = fresh();
    const conn = await createConnection({ host: '127.0.0.1', user: 'root' });
    await conn.query(`CREATE DATABASE ${name}`);
    await conn.end();
    const r = await inProcess(envFor(name), 'accounts', 'list');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(`${name} \\(DATABASE_URL\\) is not migrated \\(\\d+ pending: CreateCoreTables`),
    );
    expect(r.stderr).toContain('db migrate');
    expect(await databasesNamed(name)).toEqual([name]);
  });

  it('db status lists pending migrations without creating anything; db migrate creates and applies; then commands run', async () => {
    const name = fresh();
    const before = await cli(envFor(name), 'db', 'status', '--json');
    expect(before.code).toBe(0);
    const s = JSON.parse(before.stdout);
    expect(s.databases.map((d: { name: string }) => d.name)).toEqual(['main', 'log', 'notification']);
    for (const d of s.databases) {
      expect(d).toMatchObject({ exists: false, applied: [] });
      expect(d.pending.length).toBeGreaterThan(0);
    }
    expect(await databasesNamed(name)).toEqual([]);

    const migrated = await cli(envFor(name), 'db', 'migrate', '--json');
    expect(migrated.code).toBe(0);
    const m = JSON.parse(migrated.stdout);
    for (const [i, d] of m.databases.entries()) {
      expect(d.created).toBe(true);
      expect(d.applied).toEqual(s.databases[i].pending);
    }
    expect(await databasesNamed(name)).toEqual([name, `${name}_log`, `${name}_notification`]);

    const again = JSON.parse((await cli(envFor(name), 'db', 'migrate', '--json')).stdout);
    expect(
      again.databases.every(
        (d: { created: boolean; applied: string[] }) => !d.created && d.applied.length === 0,
      ),
    ).toBe(true);

    // A run cut off after a migration's statements, before its record: the next one completes
    // it, saying which statement it found applied. (The day partitions' migration, the last,
    // looks before it acts, so a second run finds nothing to refuse: the one before it.)
    const last = (s.databases[0].pending as string[])
      .filter((m) => !m.startsWith('PartitionMessageTablesByDay'))
      .at(-1) as string;
    const conn = await createConnection({ host: '127.0.0.1', user: 'root', database: name });
    await conn.query('DELETE FROM migrations WHERE name = ?', [last]).finally(() => conn.end());
    const completed = await cli(envFor(name), 'db', 'migrate', '--json');
    expect(completed.code).toBe(0);
    expect(JSON.parse(completed.stdout).databases[0].applied).toEqual([last]);
    expect(completed.stderr).toContain(
      `migration ${last} on ${name}: skipped a statement an interrupted run had applied`,
    );

    const after = JSON.parse((await cli(envFor(name), 'db', 'status', '--json')).stdout);
    // (The migration run again is listed last now: compared as sets.)
    for (const [i, d] of after.databases.entries())
      expect({ ...d, applied: [...d.applied].sort() }).toMatchObject({
        exists: true,
        pending: [],
        applied: [...s.databases[i].pending].sort(),
      });

    const text = await cli(envFor(name), 'db', 'status');
    expect(text.stdout).toContain(`main: mysql://root@127.0.0.1:3306/${name}: up to date`);

    const list = await cli(envFor(name), 'accounts', 'list', '--json');
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual({ accounts: [] });
  }, 120_000);

  it('reads .env from the directory it is started in (the environment still wins) and says which file', async () => {
    const name = fresh();
    const dir = mkdtempSync(join(tmpdir(), 'bm-cli-'));
    try {
      writeFileSync(
        join(dir, '.env'),
        `DATABASE_URL=mysql://root@127.0.0.1:3306/${name}\nQUEUE_PREFIX=from-dotenv\n`,
      );
      const r = await cliIn(dir, {}, 'db', 'status', '--json');
      expect(r.code, r.stderr).toBe(0);
      const status = JSON.parse(r.stdout);
      expect(status.env_file).toBe(join(dir, '.env'));
      expect(status.databases[0].url).toBe(`mysql://root@127.0.0.1:3306/${name}`);
      const overridden = await cliIn(
        dir,
        { DATABASE_URL: `mysql://root@127.0.0.1:3306/${name}_x` },
        'db',
        'status',
        '--json',
      );
      expect(JSON.parse(overridden.stdout).databases[0].url).toBe(`mysql://root@127.0.0.1:3306/${name}_x`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('help and a bare group need no database', async () => {
    const name = fresh();
    expect((await inProcess(envFor(name), '--help')).code).toBe(0);
    expect((await inProcess(envFor(name), 'db', '--help')).stdout).toContain('migrate');
    expect(await databasesNamed(name)).toEqual([]);
  });
});
