import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, killOnExit } from '../support/local-state.js';
import { examplePages, shapeDifferences, xmlTags, type ExamplePage } from '../support/readme-examples.js';
import { MYSQL_ROOT, dropTestState, uniqueName } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

/**
 * The README and then the pages of docs/, pasted in order by a new user: the built service
 * started as `npm start` runs it (node dist/main.js, sandbox transports, workers in process)
 * on a clean set of databases, then every example block in one shell, from the project
 * directory, with `localhost:3000` pointed at the service's port. The README's blocks run in
 * the shell itself; each docs page runs in a subshell of its own, so it sees what the README
 * set (`$KEY`, the `json` helper, …) and nothing another page set. Each curl must answer 2xx
 * and each shown answer must match in shape (see test/support/readme-examples.ts for the
 * conventions and the order of the pages).
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pages = examplePages(ROOT);
const runnable = pages.flatMap((p) => p.examples.filter((e) => !e.skip).map((e) => ({ ...e, file: p.file })));

interface BlockResult {
  stdout: string;
  stderr: string;
  statuses: number[];
  failures: string[];
}

const name = uniqueName();
let port: number;
let service: ChildProcess | undefined;
let serviceLog = '';
const results = new Map<number, BlockResult>();
let shellExit: number | null = null;

function script(all: ExamplePage[]): string {
  const parts = [
    'set -E -o pipefail',
    // Status codes go to stderr, so $(curl …) captures exactly what a user's would.
    `curl() { command curl -w '\\n%{stderr}@@STATUS %{http_code}\\n' "$@"; }`,
    `trap 'echo "@@FAIL exit $? from: $BASH_COMMAND" >&2' ERR`,
  ];
  let i = 0;
  for (const page of all) {
    const readme = page.file === 'README.md';
    if (!readme) parts.push('(');
    for (const b of page.examples.filter((e) => !e.skip)) {
      parts.push(`echo "@@BLOCK ${i}"; echo "@@BLOCK ${i}" >&2`);
      parts.push(b.code.replaceAll('localhost:3000', `127.0.0.1:${port}`));
      i++;
    }
    if (!readme) parts.push(')');
  }
  return parts.join('\n');
}

function split(text: string): Map<number, string> {
  const out = new Map<number, string>();
  let current = -1;
  for (const line of text.split('\n')) {
    const m = /^@@BLOCK (\d+)$/.exec(line);
    if (m) current = Number(m[1]);
    else if (current >= 0) out.set(current, `${out.get(current) ?? ''}${line}\n`);
  }
  return out;
}

describe('the README and docs/, as a new user runs them', () => {
  beforeAll(async () => {
    port = await freePort();
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      DATABASE_URL: `${MYSQL_ROOT}/${name}`,
      QUEUE_PREFIX: name,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      // docs/api/local-callbacks.md sends callbacks to receivers on loopback, as it tells a reader to.
      CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
      // No page's runnable block binds over SMPP; the default port may be another service's.
      SMPP_SERVER_PORT: '0',
      // The short-link examples (docs/api/links.md) need an address for the links.
      SHORT_LINK_BASE_URL: 'https://api.acme.example/l',
    };
    service = killOnExit(
      spawn(process.execPath, ['dist/main.js'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }),
    );
    service.stdout!.on('data', (d: Buffer) => (serviceLog += d.toString()));
    service.stderr!.on('data', (d: Buffer) => (serviceLog += d.toString()));
    await waitFor(
      async () => (await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => undefined))?.ok,
      90_000,
      'the service to be ready',
    );

    const shell = spawn('bash', ['-c', script(pages)], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    shell.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    shell.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    shellExit = await new Promise<number | null>((r) => shell.on('close', r));
    const outs = split(stdout);
    const errs = split(stderr);
    runnable.forEach((_, i) => {
      const err = errs.get(i) ?? '';
      results.set(i, {
        stdout: outs.get(i) ?? '',
        stderr: err,
        statuses: [...err.matchAll(/^@@STATUS (\d+)$/gm)].map((m) => Number(m[1])),
        failures: [...err.matchAll(/^@@FAIL (.*)$/gm)].map((m) => m[1]),
      });
    });
  }, 300_000);

  afterAll(async () => {
    if (service && service.exitCode === null) {
      service.kill('SIGTERM');
      await new Promise((r) => service!.once('exit', r));
    }
    await dropTestState(name);
  }, 60_000);

  it('has examples to run, and says why for each one it does not', () => {
    expect(pages[0].examples.filter((e) => !e.skip).length).toBeGreaterThanOrEqual(3);
    expect(runnable.length).toBeGreaterThanOrEqual(8);
    for (const e of pages.flatMap((p) => p.examples).filter((x) => x.skip))
      expect(e.skip!.length).toBeGreaterThan(5);
  });

  it('the shell ran every block to the end', () => {
    expect(results.size).toBe(runnable.length);
    expect(shellExit, serviceLog.slice(-2000)).toBe(0);
  });

  describe.each(runnable.map((e, i) => ({ i, at: `${e.file}:${e.line}`, example: e })))(
    'the block at $at',
    ({ i, example }) => {
      it('runs without a failing command, and every request answers 2xx', () => {
        const r = results.get(i)!;
        expect(r.failures, `${r.stderr}\n${r.stdout}`).toEqual([]);
        expect(
          r.statuses.filter((s) => s < 200 || s > 299),
          r.stdout,
        ).toEqual([]);
      });

      if (example.expected) {
        it(`prints an answer of the shape shown after it (${example.expected.lang})`, () => {
          const out = results.get(i)!.stdout.trim();
          const last = out.split('\n').filter(Boolean).at(-1) ?? '';
          if (example.expected!.lang === 'json') {
            expect(shapeDifferences(JSON.parse(example.expected!.text), JSON.parse(last)), last).toEqual([]);
          } else {
            expect(xmlTags(last)).toEqual(xmlTags(example.expected!.text));
          }
        });
      }
    },
  );
});
