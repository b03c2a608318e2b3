import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, killOnExit } from '../support/local-state.js';
import { MYSQL_ROOT, dropTestState, uniqueName } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

/** What an operator sees on the terminal when the service starts, fails to start, and stops. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ANSI = /\x1b\[[0-9;]*m/g;

interface Run {
  proc: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function run(command: string, args: string[], env: Record<string, string>): Run {
  let out = '';
  const proc = killOnExit(
    spawn(command, args, {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => proc.on('close', (code) => r(code)));
  return { proc, output: () => out.replace(ANSI, ''), exited };
}

function jsonLines(text: string): Array<{ level: string; msg: string; context?: string }> {
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

function nonEmpty(text: string): string[] {
  return text.split('\n').filter((l) => l.trim() && !l.startsWith('npm warn') && !l.startsWith('>'));
}

describe('start-up and shutdown, in plain words', () => {
  const names: string[] = [];
  const servers: Server[] = [];
  afterAll(async () => {
    for (const s of servers) await new Promise((r) => s.close(r));
    for (const n of names) await dropTestState(n);
  }, 60_000);

  it('MySQL down: one warning per retry naming it, no stack, then a fatal line after STARTUP_WAIT_SECONDS', async () => {
    const dead = await freePort();
    const name = uniqueName();
    names.push(name);
    const r = run(process.execPath, ['dist/main.js'], {
      DATABASE_URL: `mysql://root@127.0.0.1:${dead}/${name}`,
      QUEUE_PREFIX: name,
      PORT: String(await freePort()),
      STARTUP_WAIT_SECONDS: '3',
      LOG_PRETTY: 'false',
    });
    expect(await r.exited).toBe(1);
    const text = r.output();
    const lines = jsonLines(text);
    expect(lines.length, text).toBe(nonEmpty(text).length);
    const warns = lines.filter((l) => l.level === 'warn');
    expect(warns.length).toBeGreaterThanOrEqual(1);
    for (const w of warns)
      expect(w.msg).toMatch(
        new RegExp(`^waiting for MySQL at 127\\.0\\.0\\.1:${dead}: .*ECONNREFUSED.*retry \\d+`),
      );
    const fatal = lines.filter((l) => l.level === 'fatal');
    expect(fatal).toHaveLength(1);
    expect(fatal[0].msg).toContain(`MySQL at 127.0.0.1:${dead} did not answer within STARTUP_WAIT_SECONDS=3`);
    expect(text).not.toMatch(/^\s+at /m);
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
    expect(lines.at(-1)!.msg).toBe('bulk-messaging stopped (exit code 1)');
  }, 60_000);

  it('a busy port: one error naming PORT, nothing claims the service started, a last line', async () => {
    const server = createServer();
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, r));
    const busy = (server.address() as { port: number }).port;
    const name = uniqueName();
    names.push(name);
    const r = run(process.execPath, ['dist/main.js'], {
      DATABASE_URL: `${MYSQL_ROOT}/${name}`,
      QUEUE_PREFIX: name,
      PORT: String(busy),
      LOG_PRETTY: 'false',
      SMPP_SERVER_PORT: '0',
    });
    expect(await r.exited).toBe(1);
    const lines = jsonLines(r.output());
    const bad = lines.filter((l) => ['error', 'fatal'].includes(l.level));
    expect(bad.map((l) => l.msg)).toEqual([
      `bulk-messaging failed to start: PORT=${busy} is already in use (EADDRINUSE): stop the process holding it, or set PORT to a free port`,
    ]);
    const infos = lines.filter((l) => l.level === 'info').map((l) => l.msg);
    expect(infos.filter((m) => /listening|successfully started/.test(m))).toEqual([]);
    expect(lines.at(-1)!.msg).toBe('bulk-messaging stopped (exit code 1)');
  }, 90_000);

  it('npm start in development: databases created and migrated said so, no wiring lines, one line per request, SIGTERM reaches the service', async () => {
    const name = uniqueName();
    names.push(name);
    const port = await freePort();
    const r = run('npm', ['start', '--silent'], {
      DATABASE_URL: `${MYSQL_ROOT}/${name}`,
      QUEUE_PREFIX: name,
      PORT: String(port),
    });
    await waitFor(async () => r.output().includes(`listening on :${port}`), 90_000, 'the service to listen');
    const started = nonEmpty(r.output());
    for (const db of [name, `${name}_log`, `${name}_notification`]) {
      expect(
        started.some((l) => l.includes(`[Database] created database mysql://root@127.0.0.1:3306/${db}`)),
        started.join('\n'),
      ).toBe(true);
      expect(started.some((l) => new RegExp(`\\[Database\\] applied migration \\w+ to ${db}$`).test(l))).toBe(
        true,
      );
    }
    expect(started.filter((l) => /Mapped \{|dependencies initialized|successfully started/.test(l))).toEqual(
      [],
    );

    const before = nonEmpty(r.output()).length;
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/json/messages/nope`, {
      headers: { 'X-Request-Id': 'req-readable-1' },
    });
    expect(res.status).toBe(401);
    await waitFor(async () => r.output().includes('req-readable-1'), 10_000, 'the access line');
    const requestLines = nonEmpty(r.output()).slice(before);
    expect(requestLines).toHaveLength(1);
    expect(requestLines[0]).toMatch(
      /INFO: GET \/api\/v1\/json\/messages\/nope 401 \d+ms \(req-readable-1\)$/,
    );

    r.proc.kill('SIGTERM');
    // Another exit code says why in the service's own last lines (a stack, a timed-out shutdown).
    expect(await r.exited, r.output().slice(-4000)).toBe(0);
    expect(nonEmpty(r.output()).at(-1)).toMatch(/\[Shutdown\] bulk-messaging stopped \(exit code 0\)$/);
    // The service itself is gone too, not left behind by npm: its port is free again.
    await waitFor(
      async () => (await fetch(`http://127.0.0.1:${port}/health/live`).catch(() => 'closed')) === 'closed',
      10_000,
      'the port to close',
    );
  }, 150_000);

  it('once listening: the URL, /docs, the health URL, every interface, the first account to make on a new install, and a warning when private callbacks are allowed', async () => {
    const name = uniqueName();
    names.push(name);
    const env = {
      DATABASE_URL: `${MYSQL_ROOT}/${name}`,
      QUEUE_PREFIX: name,
      LOG_PRETTY: 'false',
      SMPP_SERVER_PORT: '0',
    };
    const start = async (extra: Record<string, string>) => {
      const port = await freePort();
      const r = run(process.execPath, ['dist/main.js'], { ...env, PORT: String(port), ...extra });
      await waitFor(
        async () => r.output().includes(`listening on :${port}`),
        90_000,
        'the service to listen',
      );
      await waitFor(async () => r.output().includes('health http'), 10_000, 'the URL line');
      const boot = jsonLines(r.output()).filter((l) => l.context === 'Bootstrap');
      r.proc.kill('SIGTERM');
      expect(await r.exited, r.output().slice(-4000)).toBe(0);
      return { port, boot };
    };

    const first = await start({ CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true', RUN_WORKERS: 'false' });
    const msgs = first.boot.map((l) => l.msg);
    expect(msgs[0]).toMatch(
      new RegExp(
        `^bulk-messaging listening on :${first.port}, every interface \\(127\\.0\\.0\\.1, .*\\) \\(env development, workers off\\)$`,
      ),
    );
    const url = `http://localhost:${first.port}`;
    expect(msgs[1]).toBe(`serving ${url}: API reference ${url}/docs, health ${url}/health`);
    expect(msgs[2]).toMatch(
      /^no account yet: create the first one with `npm run cli -- accounts create --username acme/,
    );
    expect(msgs.join('\n')).not.toContain('npx');
    const warning = first.boot.filter((l) => l.level === 'warn').map((l) => l.msg);
    expect(warning).toEqual([
      expect.stringMatching(/^CALLBACK_ALLOW_PRIVATE_NETWORKS=true: callbacks may be sent to loopback/),
    ]);

    // The CLI line it gives makes the account (here with the password on standard input).
    const cli = spawnSync(
      process.execPath,
      ['dist/cli.js', 'accounts', 'create', '--username', 'acme', '--password-stdin'],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', ...env },
        input: 'a-long-secret-1',
        encoding: 'utf8',
      },
    );
    expect(cli.status, cli.stderr).toBe(0);

    const second = await start({});
    expect(second.boot.map((l) => l.msg).filter((m) => /no account|CALLBACK_ALLOW/.test(m))).toEqual([]);
    expect(second.boot.map((l) => l.msg)[1]).toContain(`/docs`);
  }, 180_000);

  it('the first npm start says it is building before the build starts', async () => {
    // A checkout with no dist/ and an npm on PATH that stands in for the 20-second build.
    const dir = mkdtempSync(join(tmpdir(), 'bm-build-'));
    try {
      mkdirSync(join(dir, 'scripts'));
      mkdirSync(join(dir, 'src'));
      mkdirSync(join(dir, 'bin'));
      copyFileSync(join(ROOT, 'scripts/build-if-stale.mjs'), join(dir, 'scripts/build-if-stale.mjs'));
      writeFileSync(join(dir, 'src/main.ts'), '');
      writeFileSync(join(dir, 'bin/npm'), '#!/bin/sh\necho "npm $*"\n', { mode: 0o755 });
      const r = spawnSync(process.execPath, ['scripts/build-if-stale.mjs'], {
        cwd: dir,
        env: { PATH: `${join(dir, 'bin')}:${process.env.PATH ?? ''}` },
        encoding: 'utf8',
      });
      expect(r.status).toBe(0);
      expect(r.stderr).toMatch(/^building the service into dist\/ \(first start; about 20 s\)/);
      expect(r.stdout).toBe('npm run build --silent\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
