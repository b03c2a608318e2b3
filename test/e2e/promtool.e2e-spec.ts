import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant } from '../factories/account.factory.js';
import { freePort, killOnExit } from '../support/local-state.js';
import { startTestApp, testEnv, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

/**
 * The metrics of both kinds of process checked by Prometheus's own linter (Debian's
 * `prometheus` package brings promtool), and the worker's /health/live against the API's.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WORKER = join(ROOT, 'dist/worker.js');
const PROMTOOL = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((p) => existsSync(p));
if (!PROMTOOL)
  console.warn(
    '\n!!! SKIPPED: promtool check metrics — promtool is not installed (Debian package prometheus; .ci/run installs it)\n',
  );

/** dist/ is what `node dist/worker.js` runs: rebuild it when a source file is newer. */
function ensureBuilt(): void {
  const newest = (dir: string, ext: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce((m, e) => {
      const p = join(dir, e.name);
      return Math.max(m, e.isDirectory() ? newest(p, ext) : e.name.endsWith(ext) ? statSync(p).mtimeMs : 0);
    }, 0);
  if (existsSync(WORKER) && newest(join(ROOT, 'dist'), '.js') >= newest(join(ROOT, 'src'), '.ts')) return;
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    { cwd: ROOT, stdio: 'pipe', timeout: 120_000 },
  );
}

function promtool(text: string): { status: number | null; output: string } {
  const r = spawnSync(PROMTOOL!, ['check', 'metrics'], { input: text, encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('metrics of the API and of a worker process', () => {
  let t: TestApp;
  let worker: ChildProcess;
  let workerPort: number;
  let workerLog = '';
  const workerGet = (path: string) => fetch(`http://127.0.0.1:${workerPort}${path}`);

  beforeAll(async () => {
    ensureBuilt();
    t = await startTestApp({ RUN_WORKERS: 'false', SANDBOX_DELIVERY_DELAY_MS: '50' });
    workerPort = await freePort();
    const env = {
      ...testEnv(t.name, {
        METRICS_PORT: String(workerPort),
        SANDBOX_DELIVERY_DELAY_MS: '50',
        LOG_LEVEL: 'warn',
        LOG_PRETTY: 'false',
      }),
    };
    worker = killOnExit(
      spawn(process.execPath, [WORKER], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    worker.stdout!.on('data', (d: Buffer) => (workerLog += d.toString()));
    worker.stderr!.on('data', (d: Buffer) => (workerLog += d.toString()));
    await waitFor(
      async () => (await workerGet('/health/live')).ok,
      30_000,
      `the worker's /health/live (log: ${workerLog})`,
    );
    // Something to count in both processes: an accepted send (API) and its hand-over (worker).
    const tenant = await createTenant(t, { balances: { sms: '100' } });
    const res = await t
      .http()
      .post('/api/v1/json/bulk/sms')
      .set('X-API-Key', tenant.key)
      .send({ from: 'ACME', to: '260971234567', message: 'promtool' });
    expect(res.status).toBe(200);
    await waitFor(
      async () =>
        /bulk_messages_total\{channel="sms",status="SENT"\} 1/.test(
          await (await workerGet('/metrics')).text(),
        ),
      20_000,
      'SENT counted by the worker',
    );
  });
  afterAll(async () => {
    if (worker && worker.exitCode === null) {
      const exited = new Promise((r) => worker.once('exit', r));
      worker.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (worker.exitCode === null) worker.kill('SIGKILL');
    }
    await t?.close();
  });

  it.skipIf(!PROMTOOL)("the API's /metrics passes promtool check metrics", async () => {
    const text = (await t.http().get('/metrics')).text;
    expect(text).toContain('bulk_send_requests_total');
    expect(promtool(text)).toEqual({ status: 0, output: '' });
  });

  it.skipIf(!PROMTOOL)("the worker's /metrics passes promtool check metrics", async () => {
    const text = await (await workerGet('/metrics')).text();
    expect(text).toContain('bulk_dispatch_latency_seconds');
    expect(promtool(text)).toEqual({ status: 0, output: '' });
  });

  it('queue depths come from API processes only: the worker does not serve bulk_queue_jobs', async () => {
    expect((await t.http().get('/metrics')).text).toMatch(
      /^bulk_queue_jobs\{queue="sms",state="waiting"\} \d+$/m,
    );
    expect(await (await workerGet('/metrics')).text()).not.toContain('bulk_queue_jobs');
  });

  it("the worker's /health/live has the same fields as the API's", async () => {
    const api = (await t.http().get('/health/live')).body as Record<string, unknown>;
    const res = await workerGet('/health/live');
    expect(res.status).toBe(200);
    const own = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(own).sort()).toEqual(Object.keys(api).sort());
    expect(own).toMatchObject({ status: 'alive', service: 'bulk-messaging-worker', pid: String(worker.pid) });
    expect(typeof own.cpu_usage_percent).toBe('number');
    expect(typeof own.memory_usage_mb).toBe('number');
  });
});
