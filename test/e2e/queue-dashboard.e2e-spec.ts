import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appRoutes } from '@bull-board/api/dist/routes.js';
import type { Job } from 'bull';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchJobOptions } from '../../src/modules/delivery/dispatch/dispatch.producer.js';
import { DISPATCH_COMPLETED_KEPT } from '../../src/modules/delivery/retry-policy.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The operators' queue dashboard (Bull Board at /admin/queues), opened in a real browser:
 * Debian's Chromium, driven by playwright-core. `.ci/run` installs Chromium when it is missing.
 */
const TOKEN = 'ops-token-0123456789abcdef';

describe('queue dashboard', () => {
  let t: TestApp;
  let base: string;
  let failed: Job;
  let delayed: Job;

  /** Every queue's counts, pause state and the two jobs' states: what a write would change. */
  async function snapshot() {
    const names = ['sms', 'email', 'chat', 'priority', 'test', 'callbacks'] as const;
    const queues = await Promise.all(
      names.map(async (n) => [n, await t.queue(n).getJobCounts(), await t.queue(n).isPaused()]),
    );
    const jobs = [
      await (await t.queue('sms').getJob(failed.id))?.getState(),
      await (await t.queue('email').getJob(delayed.id))?.getState(),
    ];
    return { queues, jobs, data: (await t.queue('sms').getJob(failed.id))?.data };
  }

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_TOKEN: TOKEN });
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;
    // No workers run here (RUN_WORKERS=false): a job is failed by hand, as a transport would.
    await t.queue('sms').add({ sendRequestId: '1', messageIds: ['m-1'] });
    failed = (await t.queue('sms').getNextJob()) as Job;
    await failed.moveToFailed({ message: 'SMSC refused the bind: ESME_RBINDFAIL' }, true);
    // getNextJob took the job's lock, as a worker does; a worker's failure releases it.
    await failed.releaseLock();
    delayed = await t.queue('email').add({ sendRequestId: '2', messageIds: ['m-2'] }, { delay: 3_600_000 });
    // A job queued as the producer queues them, then completed as a worker completes it.
    await t.queue('chat').add({ sendRequestId: '3', messageIds: ['m-3'] }, dispatchJobOptions('3', 0));
    const done = (await t.queue('chat').getNextJob()) as Job;
    await done.moveToCompleted('sent', true);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('refuses a request without the token, or with a wrong one, in the error envelope with a Basic challenge', async () => {
    const none = await t.http().get('/admin/queues');
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Basic realm=/);
    expect(none.body.error.code).toBe('MISSING_API_KEY');
    const wrong = await t.http().get('/admin/queues/api/queues').auth('ops', 'not-the-token-at-all');
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('INVALID_API_KEY');
    const bearer = await t.http().get('/admin/queues/api/queues').set('Authorization', `Bearer ${TOKEN}`);
    expect(bearer.status).toBe(200);
  });

  it('lists every queue with its waiting, delayed, failed and completed counts', async () => {
    const res = await t.http().get('/admin/queues/api/queues').auth('ops', TOKEN);
    expect(res.status).toBe(200);
    const byName = Object.fromEntries(
      (res.body.queues as Array<{ name: string; counts: Record<string, number> }>).map((q) => [
        q.name,
        q.counts,
      ]),
    );
    expect(Object.keys(byName).sort()).toEqual(['callbacks', 'chat', 'email', 'priority', 'sms', 'test']);
    expect(byName.sms).toMatchObject({ failed: 1, waiting: 0, completed: 0 });
    expect(byName.email).toMatchObject({ delayed: 1 });
    // Completed jobs stay listed (the last ones, bounded) instead of vanishing at once.
    expect(byName.chat).toMatchObject({ completed: 1 });
    expect(DISPATCH_COMPLETED_KEPT).toBeGreaterThan(0);
    expect(dispatchJobOptions('3', 0).removeOnComplete).toBe(DISPATCH_COMPLETED_KEPT);
  });

  it('a browser logs in and sees the failed job with its reason, with no button that writes', async () => {
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const anonymous = await browser.newContext();
      // Without credentials the browser gets the Basic challenge and cannot get past it.
      const refused = await (await anonymous.newPage()).goto(`${base}/admin/queues`).then(
        (r) => String(r?.status()),
        (err: Error) => err.message,
      );
      expect(refused).toMatch(/^401$|ERR_INVALID_AUTH_CREDENTIALS/);

      const context = await browser.newContext({ httpCredentials: { username: 'ops', password: TOKEN } });
      const page = await context.newPage();
      // Everything the page loads comes from the service itself: no fonts or scripts from outside.
      const requested: string[] = [];
      page.on('request', (r) => requested.push(r.url()));
      const opened = await page.goto(`${base}/admin/queues/queue/sms?status=failed`);
      expect(opened?.status()).toBe(200);
      await page.getByText('ESME_RBINDFAIL').first().waitFor({ timeout: 20_000 });
      await page.screenshot({ path: join(tmpdir(), 'queue-dashboard.png'), fullPage: true });
      expect(requested.length).toBeGreaterThan(1);
      expect(requested.filter((url) => !url.startsWith(`${base}/`))).toEqual([]);

      // The board is read-only: the failed list offers no "Retry all" nor "Clean all".
      for (const name of ['Retry all', 'Clean all', 'Add job'])
        expect(await page.getByRole('button', { name, exact: true }).count()).toBe(0);
      expect(await t.queue('sms').getFailedCount()).toBe(1);
    } finally {
      await browser?.close();
    }
  }, 90_000);

  it('refuses every write route of Bull Board with 403, with the admin token or without, and changes nothing', async () => {
    const before = await snapshot();
    // Every route Bull Board declares that is not a read, so that one a later release adds is
    // tried too; its parameters name real queues and jobs, so a write let through would act.
    const writes = appRoutes.api.filter((r) => r.method !== 'get');
    expect(writes.map((r) => r.route)).toEqual(
      expect.arrayContaining([
        '/api/queues/:queueName/add',
        '/api/queues/:queueName/retry/:queueStatus',
        '/api/queues/:queueName/promote',
        '/api/queues/:queueName/clean/:queueStatus',
        '/api/queues/:queueName/empty',
        '/api/queues/:queueName/pause',
        '/api/queues/:queueName/resume',
        '/api/queues/:queueName/obliterate',
        '/api/queues/pause',
        '/api/queues/resume',
        '/api/queues/:queueName/:jobId/retry',
        '/api/queues/:queueName/:jobId/clean',
        '/api/queues/:queueName/:jobId/promote',
        '/api/queues/:queueName/:jobId/update-data',
      ]),
    );
    const targets = [
      { queueName: 'sms', jobId: String(failed.id), queueStatus: 'failed' },
      { queueName: 'email', jobId: String(delayed.id), queueStatus: 'delayed' },
      { queueName: 'callbacks', jobId: '1', queueStatus: 'completed' },
    ];
    const body = { name: 'evil', data: { url: 'https://attacker.example/' }, options: {} };
    const tried: string[] = [];
    for (const params of targets)
      for (const route of writes) {
        const path = `/admin/queues${String(route.route).replace(
          /:(\w+)/g,
          (_: string, k: string) => params[k as keyof typeof params] ?? 'x',
        )}`;
        for (const auth of [`Bearer ${TOKEN}`, undefined]) {
          const req = t.http()[route.method as 'put' | 'post' | 'patch'](path).send(body);
          const res = await (auth ? req.set('Authorization', auth) : req);
          tried.push(`${route.method} ${path} ${res.status}`);
          expect(res.status, `${route.method} ${path}`).toBe(403);
          expect(res.body.error.code).toBe('FORBIDDEN');
        }
      }
    expect(tried.length).toBe(writes.length * targets.length * 2);
    // DELETE is no Bull Board route, but refused the same way rather than reaching the router.
    const del = await t.http().delete('/admin/queues/api/queues/sms').set('Authorization', `Bearer ${TOKEN}`);
    expect(del.status).toBe(403);
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a job added to the callbacks queue with the admin token: no job is queued', async () => {
    const res = await t
      .http()
      .post('/admin/queues/api/queues/callbacks/add')
      .auth('ops', TOKEN)
      .send({ name: 'callback', data: { url: 'https://attacker.example/hook', outboxId: '1' } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    expect(await t.queue('callbacks').getJobCounts()).toMatchObject({ waiting: 0, delayed: 0, active: 0 });
    // Reads still work with the same token.
    const read = await t.http().get('/admin/queues/api/queues').auth('ops', TOKEN);
    expect(read.status).toBe(200);
    expect((read.body.queues as Array<{ readOnlyMode: boolean }>).every((q) => q.readOnlyMode)).toBe(true);
  });

  it('does not exist without ADMIN_TOKEN', async () => {
    const plain = await startTestApp();
    try {
      const res = await plain.http().get('/admin/queues').auth('ops', TOKEN);
      expect(res.status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
