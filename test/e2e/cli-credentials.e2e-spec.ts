import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import argon2 from 'argon2';
import { createConnection, type Connection } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountFields, accountsNamed, apiKeysNamed } from '../support/account-probes.js';
import { runCli } from '../support/cli-in-process.js';
import { throughConnection, type Probed } from '../support/message-probes.js';
// Not test-app.js: loading the app's module registers data source names, and each CLI context
// run in process would warn of a duplicate on its output.
import { dropLocalState as dropTestState } from '../support/local-state.js';
import { MYSQL_ROOT, testEnv, uniqueName } from '../support/test-env.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const name = uniqueName();
const env: Record<string, string> = {
  PATH: process.env.PATH ?? '',
  ...testEnv(name),
  LOG_DATABASE_URL: `${MYSQL_ROOT}/${name}_log`,
  NOTIFICATION_DATABASE_URL: `${MYSQL_ROOT}/${name}_notification`,
};

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the compiled CLI with `args`, writing `stdin` (when given) to its standard input, a pipe as in a script. */
function cli(args: string[], stdin?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env,
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(stdin ?? '');
  });
}

/** A command that reads no standard input, run through the CLI module in this process. */
const inProcess = (args: string[]) => runCli(env, args);

describe('CLI credentials', () => {
  let db: Connection;
  let stored: Probed;

  beforeAll(async () => {
    // The CLI never creates a database by itself: `db migrate` first, as an operator would.
    expect((await cli(['db', 'migrate', '--json'])).code).toBe(0);
    const first = await cli(
      ['accounts', 'create', '--username', 'carol', '--password-stdin', '--json'],
      'tenant-pass-phrase-9\n',
    );
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    db = await createConnection({ host: '127.0.0.1', user: 'root', database: name });
    stored = throughConnection(db, name);
  });
  afterAll(async () => {
    await db?.end();
    await dropTestState(name);
  });

  const hashOf = async (username: string) =>
    (await accountFields(stored, { username }, 'password_hash')).password_hash as string;

  it('reads the password from standard input, without its final newline', async () => {
    expect(await argon2.verify(await hashOf('carol'), 'tenant-pass-phrase-9')).toBe(true);
  });

  it('prompts twice on a terminal without echoing the password', async () => {
    // `script` (util-linux) gives the CLI a pseudo-terminal; answers are typed once each prompt shows.
    const password = 'typed-pass-phrase-4';
    const child = spawn(
      'script',
      ['-qec', `${process.execPath} ${CLI} accounts create --username erin --json`, '/dev/null'],
      { env, cwd: ROOT },
    );
    let screen = '';
    let answered = 0;
    child.stdout.on('data', (d: Buffer) => {
      screen += d.toString();
      const prompts = (screen.match(/New password: |Repeat it: /g) ?? []).length;
      while (answered < prompts) {
        child.stdin.write(`${password}\r`);
        answered++;
      }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    expect(code).toBe(0);
    expect(answered).toBe(2);
    expect(screen).not.toContain(password);
    expect(screen).toMatch(/"username":"erin"/);
    expect(await argon2.verify(await hashOf('erin'), password)).toBe(true);
  });

  it('refuses short and common passwords with exit 1, creating nothing', async () => {
    for (const [password, why] of [
      ['password', /at least 10 characters/],
      ['12345678', /at least 10 characters/],
      ['1234567890', /too common/],
      ['Password123!', /too common/],
    ] as const) {
      const r = await inProcess(['accounts', 'create', '--username', 'weak', '--password', password]);
      expect(r.code, password).toBe(1);
      expect(r.stderr).toMatch(why);
    }
    expect(await accountsNamed(stored, 'weak')).toBe(0);
  });

  it('asks for a password source when there is no flag and no terminal (exit 2), and refuses both at once', async () => {
    const none = await cli(['accounts', 'create', '--username', 'dave']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--password-stdin/);
    const both = await cli(
      ['accounts', 'create', '--username', 'dave', '--password', 'tenant-pass-phrase-9', '--password-stdin'],
      'x',
    );
    expect(both.code).toBe(2);
  });

  it('accounts password changes the password from standard input, checked like a new one', async () => {
    const weak = await cli(
      ['accounts', 'password', '--username', 'carol', '--password-stdin'],
      'qwertyuiop\n',
    );
    expect(weak.code).toBe(1);
    expect(weak.stderr).toMatch(/too common/);
    expect(await argon2.verify(await hashOf('carol'), 'tenant-pass-phrase-9')).toBe(true);

    const ok = await cli(
      ['accounts', 'password', '--username', 'carol', '--password-stdin', '--json'],
      'another-pass-phrase-7\n',
    );
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({ username: 'carol', password_changed: true });
    const hash = await hashOf('carol');
    expect(await argon2.verify(hash, 'another-pass-phrase-7')).toBe(true);
    expect(await argon2.verify(hash, 'tenant-pass-phrase-9')).toBe(false);

    const unknown = await cli(
      ['accounts', 'password', '--username', 'nobody', '--password-stdin'],
      'another-pass-phrase-7',
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no account named nobody/);
  });

  it('refuses a key for a suspended account, storing none', async () => {
    expect((await inProcess(['accounts', 'suspend', 'carol'])).code).toBe(0);
    const r = await inProcess(['keys', 'create', '--username', 'carol', '--name', 'while suspended']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/suspended/);
    expect(await apiKeysNamed(stored, 'while suspended')).toHaveLength(0);
    expect((await inProcess(['accounts', 'activate', 'carol'])).code).toBe(0);
  });

  it('refuses control characters in key names, at create and update', async () => {
    const r = await inProcess(['keys', 'create', '--username', 'carol', '--name', 'red\u001b[31m alert']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/control characters/);
    const made = await inProcess(['keys', 'create', '--username', 'carol', '--name', 'plain', '--json']);
    expect(made.code).toBe(0);
    const id = JSON.parse(made.stdout).id as string;
    const u = await inProcess(['keys', 'update', id, '--name', 'two\nlines']);
    expect(u.code).toBe(1);
    expect(u.stderr).toMatch(/control characters/);
  });
});
