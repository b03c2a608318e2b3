import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { setWebhookUrlDirectly } from '../support/direct-writes.js';
import { startHttpPeer, type HttpPeer } from '../support/http-peer.js';
import { freePort, killOnExit } from '../support/local-state.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

/**
 * Where webhook events may go: the SSRF rules at creation and at delivery, and the receivers the
 * docs show, run as written against the events the service signs.
 */

/** The fenced block of a language on a docs page, as a reader copies it. */
function docBlock(page: string, lang: string): string {
  const m = new RegExp('```' + lang + '\\n([\\s\\S]*?)\\n```').exec(readFileSync(page, 'utf8'));
  if (!m) throw new Error(`no ${lang} block in ${page}`);
  return m[1];
}

describe('the receivers of docs/api/webhooks.md, run as written', () => {
  let t: TestApp;
  let a: Tenant;
  const dir = mkdtempSync(join(tmpdir(), 'receivers-'));
  const running: ChildProcess[] = [];
  beforeAll(async () => {
    writeFileSync(join(dir, 'receiver.mjs'), docBlock('docs/api/webhooks.md', 'js'));
    writeFileSync(join(dir, 'receiver.py'), docBlock('docs/api/webhooks.md', 'python'));
    t = await startTestApp({ CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true' });
    a = await createTenant(t);
  }, 60_000);
  afterAll(async () => {
    for (const p of running) p.kill();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['Node.js', process.execPath, 'receiver.mjs'],
    ['Python', 'python3', 'receiver.py'],
  ])('the %s receiver accepts the signed events and refuses a forged one', async (_, command, file) => {
    const port = await freePort();
    const made = await t
      .http()
      .post('/api/v1/json/webhooks')
      .set('X-API-Key', a.key)
      .send({ url: `http://127.0.0.1:${port}/hooks`, events: ['*'] });
    let out = '';
    const proc = killOnExit(
      spawn(command, [join(dir, file)], {
        env: { ...process.env, PORT: String(port), WEBHOOK_SECRET: made.body.secret },
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    );
    running.push(proc);
    proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const answer = await waitFor(
      async () => {
        const res = await t
          .http()
          .post(`/api/v1/json/webhooks/${made.body.webhook_id}/test`)
          .set('X-API-Key', a.key);
        return res.body.delivered ? res.body : null;
      },
      20_000,
      `the ${file} receiver to answer`,
    );
    expect(answer).toMatchObject({ http_status: 204, error: null });
    await waitFor(
      async () => (out.includes(`webhook.test ${answer.event_id} live`) ? true : null),
      5_000,
      'its log line',
    );
    const body = JSON.stringify({ event_id: 'forged', type: 'message.delivered', test: false, data: {} });
    const forged = await fetch(`http://127.0.0.1:${port}/hooks`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-Signature-Timestamp': String(Math.floor(Date.now() / 1000)),
        'X-Signature': `v1=${'0'.repeat(64)}`,
      },
      body,
    });
    expect(forged.status).toBe(401);
  });
});

describe('webhook endpoints without private networks', () => {
  let t: TestApp;
  let a: Tenant;
  let hooks: HttpPeer;
  beforeAll(async () => {
    hooks = await startHttpPeer(() => ({ status: 204 }));
    t = await startTestApp({ RUN_WORKERS: 'true', SANDBOX_DELIVERY_DELAY_MS: '50' });
    a = await createTenant(t);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await hooks?.close();
  });
  const create = (body: object) => t.http().post('/api/v1/json/webhooks').set('X-API-Key', a.key).send(body);

  it('refuses a loopback or private URL at creation and at change', async () => {
    const made = await create({ url: `${hooks.url}/hook`, events: ['*'] });
    expect(made.status).toBe(400);
    expect(made.body.error).toMatchObject({ code: 'INVALID_CALLBACK_URL', details: [{ field: 'url' }] });
    const ok = await create({ url: 'https://hooks.acme.example/x', events: ['*'] });
    expect(ok.status).toBe(201);
    const changed = await t
      .http()
      .patch(`/api/v1/json/webhooks/${ok.body.webhook_id}`)
      .set('X-API-Key', a.key)
      .send({ url: 'http://10.0.0.1/hook' });
    expect(changed.status).toBe(400);
    await t.http().delete(`/api/v1/json/webhooks/${ok.body.webhook_id}`).set('X-API-Key', a.key);
  });

  it('refuses a private target at delivery, for the test event and for events alike', async () => {
    const made = await create({ url: 'https://hooks.acme.example/x', events: ['*'] });
    const id = made.body.webhook_id as string;
    await setWebhookUrlDirectly(t, id, `${hooks.url}/private`);
    const test = await t.http().post(`/api/v1/json/webhooks/${id}/test`).set('X-API-Key', a.key);
    expect(test.body).toMatchObject({
      delivered: false,
      http_status: null,
      error: expect.stringMatching(/refused/),
    });
    await t
      .http()
      .post('/api/v1/json/bulk/sms')
      .set('X-API-Key', a.key)
      .send({ from: 'ACME', to: '260971234567', message: 'Hi' });
    const logged = await waitFor(
      async () => {
        const res = await t.http().get(`/api/v1/json/webhooks/${id}/deliveries`).set('X-API-Key', a.key);
        const row = (res.body.data as Array<Record<string, any>>).find((r) => r.type === 'message.delivered');
        return row?.attempts ? row : null;
      },
      20_000,
      'the refused attempt logged',
    );
    expect(logged).toMatchObject({
      attempts: 1,
      last_status: null,
      next_attempt_at: null,
      delivered_at: null,
    });
    expect(logged.last_error).toMatch(/non-public/);
    expect(hooks.requests).toHaveLength(0);
  });
});
