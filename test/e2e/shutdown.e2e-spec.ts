import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Bull from 'bull';
import { createConnection } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpDrain } from '../../src/modules/health/http-drain.service.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { requestLogs } from '../support/account-probes.js';
import { requestMessages, requestsOf, throughConnection } from '../support/message-probes.js';
import { freePort } from '../support/redis-instance.js';
import {
  MYSQL_ROOT,
  dropTestState,
  startTestApp,
  testEnv,
  uniqueName,
  type TestApp,
} from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const MAIN = join(ROOT, 'dist/main.js');

/** dist/ is what `node dist/main.js` runs: rebuild it when a source file is newer (npm test's pretest builds it too). */
function ensureBuilt(): void {
  const newest = (dir: string, ext: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce((m, e) => {
      const p = join(dir, e.name);
      return Math.max(m, e.isDirectory() ? newest(p, ext) : e.name.endsWith(ext) ? statSync(p).mtimeMs : 0);
    }, 0);
  if (existsSync(MAIN) && newest(join(ROOT, 'dist'), '.js') >= newest(join(ROOT, 'src'), '.ts')) return;
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    { cwd: ROOT, stdio: 'pipe', timeout: 90_000 },
  );
}

/** One raw HTTP/1.1 exchange on a socket of our own, so keep-alive and timing are in the test's hands. */
class RawClient {
  readonly socket: Socket;
  data = '';
  closed = false;
  private readonly opened: Promise<void>;

  constructor(port: number) {
    this.socket = connect({ host: '127.0.0.1', port });
    this.socket.setEncoding('utf8');
    this.socket.on('data', (d: string) => (this.data += d));
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => (this.closed = true));
    this.opened = new Promise((resolve) => this.socket.once('connect', () => resolve()));
  }

  async write(text: string): Promise<void> {
    await this.opened;
    await new Promise<void>((resolve) => this.socket.write(text, () => resolve()));
  }

  /** Resolves with status, headers and body of the first complete response (Content-Length framed). */
  response(ms = 10_000): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    return waitFor(
      async () => {
        const end = this.data.indexOf('\r\n\r\n');
        if (end < 0) return undefined;
        const [statusLine, ...headerLines] = this.data.slice(0, end).split('\r\n');
        const headers = Object.fromEntries(
          headerLines.map((l) => [
            l.slice(0, l.indexOf(':')).toLowerCase(),
            l.slice(l.indexOf(':') + 1).trim(),
          ]),
        );
        const body = this.data.slice(end + 4);
        if (Buffer.byteLength(body) < Number(headers['content-length'] ?? 0)) return undefined;
        return { status: Number(statusLine.split(' ')[1]), headers, body };
      },
      ms,
      'a response',
    );
  }
}

describe('graceful shutdown of the HTTP app (app.close(), in process)', () => {
  let t: TestApp;
  let tenant: Tenant;
  let port: number;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t, { balances: { sms: '1000' } });
    port = await freePort();
    await t.app.listen(port, '127.0.0.1');
  });
  afterAll(async () => {
    await t?.app.close().catch(() => undefined);
    await dropTestState(t.name);
  });

  it('turns readiness 503, refuses new connections, answers late requests 503 Connection: close, and lets the in-flight one finish', async () => {
    const body = JSON.stringify({
      from: 'ACME',
      to: ['260971234567', '260971234568'],
      message: 'in flight at shutdown',
    });
    const split = Math.floor(body.length / 2);
    // In flight: headers and half the body sent before the shutdown starts.
    const inflight = new RawClient(port);
    await inflight.write(
      `POST /api/v1/json/bulk/sms HTTP/1.1\r\nHost: x\r\nX-Request-Id: drain-inflight\r\nX-API-Key: ${tenant.key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, split)}`,
    );
    // Idle keep-alive connection: one answered request, then nothing.
    const idle = new RawClient(port);
    await idle.write('GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n');
    expect((await idle.response()).status).toBe(200);
    // Kept-alive connections whose next request is on its way (headers not finished yet).
    const lateProbe = new RawClient(port);
    await lateProbe.write('GET /health/ready HTTP/1.1\r\nHost: x\r\n');
    const lateSend = new RawClient(port);
    await lateSend.write(
      `POST /api/v1/json/bulk/sms HTTP/1.1\r\nHost: x\r\nX-API-Key: ${tenant.key}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n`,
    );
    const drain = t.app.get(HttpDrain);
    await waitFor(async () => drain.inFlightCount === 1, 2000, 'the request in flight');

    let closed = false;
    const closing = t.app.close().then(() => (closed = true));
    await waitFor(async () => drain.isDraining, 2000, 'drain');

    // Idle keep-alive connections are closed at once; no new connection is accepted.
    await waitFor(async () => idle.closed, 2000, 'idle connection closed');
    const refused = await new Promise<boolean>((resolve) => {
      const s = connect({ host: '127.0.0.1', port });
      s.once('connect', () => (s.destroy(), resolve(false)));
      s.once('error', () => resolve(true));
    });
    expect(refused).toBe(true);

    // Requests completing on kept-alive connections during the drain.
    await lateProbe.write('\r\n');
    const ready = await lateProbe.response();
    expect(ready.status).toBe(503);
    expect(ready.headers.connection).toBe('close');
    expect(JSON.parse(ready.body)).toMatchObject({ status: 'not_ready', shutting_down: true });
    await lateSend.write('\r\n{}');
    const refusedSend = await lateSend.response();
    expect(refusedSend.status).toBe(503);
    expect(refusedSend.headers.connection).toBe('close');
    expect(refusedSend.headers['retry-after']).toBeDefined();
    expect(JSON.parse(refusedSend.body)).toMatchObject({
      success: false,
      error: { code: 'SERVICE_UNAVAILABLE' },
    });

    // Shutdown waits for the request in flight, which still reaches MySQL and Redis.
    await new Promise((r) => setTimeout(r, 300));
    expect(closed).toBe(false);
    await inflight.write(body.slice(split));
    const done = await inflight.response();
    expect(done.status).toBe(200);
    expect(done.headers.connection).toBe('close');
    const answer = JSON.parse(done.body) as { api_reference: string; data: unknown[] };
    expect(answer.data).toHaveLength(2);
    await closing;
    const db = await createConnection({ host: '127.0.0.1', user: 'root', database: t.name });
    try {
      const stored = throughConnection(db, t.name);
      expect(await requestMessages(stored, answer.api_reference, 'id')).toHaveLength(2);
      // Drained before the log writer's last flush and before the log database closed: its request-log row is there.
      expect(await requestLogs(stored, { requestId: 'drain-inflight' }, 'status')).toEqual([{ status: 200 }]);
    } finally {
      await db.end();
    }
  });
});

interface Child {
  proc: ChildProcess;
  lines: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

function startMain(env: Record<string, string>): Child {
  const lines: string[] = [];
  const proc = spawn(process.execPath, [MAIN], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let buf = '';
  const take = (d: Buffer) => {
    buf += d.toString('utf8');
    const parts = buf.split('\n');
    buf = parts.pop() ?? '';
    lines.push(...parts.filter(Boolean));
  };
  proc.stdout!.on('data', take);
  proc.stderr!.on('data', take);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  return { proc, lines, exited };
}

async function untilReady(port: number): Promise<void> {
  await waitFor(
    async () => (await fetch(`http://127.0.0.1:${port}/health/ready`)).status === 200,
    30_000,
    'the child to be ready',
  );
}

describe('SIGTERM to node dist/main.js', () => {
  const name = uniqueName();
  let tenant: Tenant;
  const children: Child[] = [];

  beforeAll(async () => {
    ensureBuilt();
    // Databases migrated and an account with a key, then the in-process app is gone: only the child serves.
    const t = await startTestApp({}, name);
    tenant = await createTenant(t, { balances: { sms: '100000' } });
    await t.app.close();
  }, 120_000);
  afterAll(async () => {
    for (const c of children)
      if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
    await dropTestState(name);
  });

  const env = (port: number, extra: Record<string, string> = {}) => ({
    ...testEnv(name),
    LOG_DATABASE_URL: `${MYSQL_ROOT}/${name}_log`,
    NOTIFICATION_DATABASE_URL: `${MYSQL_ROOT}/${name}_notification`,
    PORT: String(port),
    LOG_LEVEL: 'info',
    ...extra,
  });

  it('loses nothing when it arrives during a 5,000-recipient send: 200 with every message stored and queued, or nothing stored', async () => {
    const port = await freePort();
    const child = startMain(env(port, { SHUTDOWN_GRACE_MS: '20000' }));
    children.push(child);
    await untilReady(port);

    const to = Array.from({ length: 5000 }, (_, i) => `26096${String(1000000 + i).padStart(7, '0')}`);
    const payload = JSON.stringify({
      from: 'ACME',
      to,
      message: 'shutdown test',
      user_reference_id: `sigterm-${name}`,
    });
    const started = Date.now();
    const outcome = new Promise<{ status: number; body: string } | { error: string }>((resolve) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/api/v1/json/bulk/sms',
          headers: {
            'X-API-Key': tenant.key,
            'Content-Type': 'application/json',
            'Content-Length': Buffer.byteLength(payload),
          },
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          res.on('error', (e) => resolve({ error: e.message }));
        },
      );
      req.on('error', (e) => resolve({ error: e.message }));
      req.end(payload, () => setTimeout(() => child.proc.kill('SIGTERM'), 40));
    });
    const result = await outcome;
    const exit = await child.exited;
    expect(exit.code).toBe(0);
    expect(exit.at - started).toBeLessThan(20_000);

    const db = await createConnection({ host: '127.0.0.1', user: 'root', database: name });
    let stored: number;
    let request: { id: string; enqueued_at: Date | null } | undefined;
    try {
      const probe = throughConnection(db, name);
      const found = (
        await requestsOf(probe, tenant.account.id, 'id', 'user_reference_id', 'enqueued_at')
      ).find((r) => r.user_reference_id === `sigterm-${name}`);
      request = found && { id: String(found.id), enqueued_at: found.enqueued_at };
      stored = request ? (await requestMessages(probe, request.id, 'id')).length : 0;
    } finally {
      await db.end();
    }
    // The kill landed while the request was being handled: the drain said so.
    expect(child.lines.some((l) => /draining: no new connections; 1 request\(s\) in flight/.test(l))).toBe(
      true,
    );
    if ('status' in result && result.status === 200) {
      expect(stored).toBe(5000);
      expect(JSON.parse(result.body).data).toHaveLength(5000);
      if (request?.enqueued_at) {
        const queue = new Bull('sms', { redis: 'redis://127.0.0.1:6379', prefix: name });
        try {
          const jobs = await queue.getJobs(['waiting', 'delayed', 'paused', 'active']);
          const ids = jobs
            .filter((j) => j?.data.sendRequestId === request!.id)
            .flatMap((j) => j.data.messageIds as string[]);
          expect(new Set(ids).size).toBe(5000);
        } finally {
          await queue.close();
        }
      }
      // else: stored with enqueued_at NULL, which the recovery sweep enqueues.
    } else {
      expect(stored).toBe(0);
      expect(request).toBeUndefined();
    }
  }, 60_000);

  it('exits within SHUTDOWN_GRACE_MS, saying so, when a request never finishes', async () => {
    const port = await freePort();
    const child = startMain(env(port, { SHUTDOWN_GRACE_MS: '2000' }));
    children.push(child);
    await untilReady(port);
    // A request whose body never finishes arriving.
    const stuck = new RawClient(port);
    await stuck.write(
      `POST /api/v1/json/bulk/sms HTTP/1.1\r\nHost: x\r\nX-API-Key: ${tenant.key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"from":`,
    );
    await new Promise((r) => setTimeout(r, 200));
    const killedAt = Date.now();
    child.proc.kill('SIGTERM');
    const exit = await child.exited;
    // The signal, if one ended it, and the process's last lines say why when this fails.
    expect({ code: exit.code, signal: exit.signal }, child.lines.slice(-10).join('\n')).toEqual({
      code: 1,
      signal: null,
    });
    expect(exit.at - killedAt).toBeGreaterThanOrEqual(1900);
    expect(exit.at - killedAt).toBeLessThan(4000);
    expect(
      child.lines.some((l) =>
        /graceful shutdown did not finish within SHUTDOWN_GRACE_MS=2000 ms; forcing exit/.test(l),
      ),
    ).toBe(true);
    stuck.socket.destroy();
  }, 60_000);
});
