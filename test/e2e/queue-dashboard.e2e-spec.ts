import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Job } from 'bull';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchJobOptions } from '../../src/modules/delivery/dispatch.producer.js';
import { DISPATCH_COMPLETED_KEPT } from '../../src/modules/delivery/retry-policy.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

/**
 * The operators' queue dashboard (Bull Board at /admin/queues), opened in a real browser:
 * Debian's Chromium, driven by playwright-core. `.ci/run` installs Chromium when it is missing.
 */
const TOKEN = 'ops-token-0123456789abcdef';

describe('queue dashboard', () => {
  let t: TestApp;
  let base: string;
  let failed: Job;

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
    await t.queue('email').add({ sendRequestId: '2', messageIds: ['m-2'] }, { delay: 3_600_000 });
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

  it('a browser logs in, sees the failed job with its reason, and retries it', async () => {
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

      // The failed list's "Retry all" (the job card's own icons carry no accessible name),
      // then the confirmation Bull Board asks for.
      await page.getByRole('button', { name: 'Retry all', exact: true }).click();
      const confirm = page.getByRole('button', { name: 'Confirm', exact: true });
      await confirm.waitFor({ timeout: 5000 }).then(
        () => confirm.click(),
        () => undefined,
      );
      await waitFor(
        async () => (await t.queue('sms').getFailedCount()) === 0,
        15_000,
        'the failed job to be retried',
      );
      expect(await (await t.queue('sms').getJob(failed.id))!.isWaiting()).toBe(true);
    } finally {
      await browser?.close();
    }
  }, 90_000);

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
