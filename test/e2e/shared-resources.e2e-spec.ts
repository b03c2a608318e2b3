import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { runCli } from '../support/cli-in-process.js';
import { runningExportQueries } from '../support/message-probes.js';
import { seedAccountMessages } from '../support/message-seed.js';
import { MYSQL_ROOT, startTestApp, testEnv, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

const EXPORT = '/api/v1/json/messages/export';
const FORMULA_REF = '=HYPERLINK("http://attacker.example/x","click")';
const FORMULA_EMAIL = "=cmd|'/Ccalc'!A0@example.com";

describe('what one tenant writes cannot run in another reader’s spreadsheet', () => {
  let t: TestApp;
  let a: Tenant;

  beforeAll(async () => {
    t = await startTestApp();
    a = await createTenant(t);
    const sms = await t
      .http()
      .post('/api/v1/json/bulk/sms')
      .set('X-API-Key', a.key)
      .send({ from: 'ACME', to: '260971000001', message: 'Hi', user_reference_id: FORMULA_REF });
    expect(sms.status).toBe(200);
    const email = await t
      .http()
      .post('/api/v1/json/bulk/email')
      .set('X-API-Key', a.key)
      .send({
        from: 'noreply@acme.example.com',
        subject: 'Hi',
        email_body: '<p>Hi</p>',
        to: [FORMULA_EMAIL],
        user_reference_id: '@SUM(1+1)',
      });
    expect(email.status).toBe(200);
  });
  afterAll(async () => t?.close());

  /** Every cell of the exported CSV that starts with a character a spreadsheet runs as a formula. */
  const formulaCells = (csv: string) =>
    csv
      .trimEnd()
      .split('\n')
      .flatMap((line) => line.split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/))
      .map((cell) => (cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell))
      .filter((cell) => /^[=+\-@\t\r]/.test(cell));

  it('neutralises formula cells in the API export with a leading quote', async () => {
    const res = await t.http().get(EXPORT).set('X-API-Key', a.key).buffer(true);
    expect(res.status).toBe(200);
    expect(formulaCells(res.text)).toEqual([]);
    expect(res.text).toContain(`"'${FORMULA_REF.replace(/"/g, '""')}"`);
    expect(res.text).toContain(`'${FORMULA_EMAIL}`);
    expect(res.text).toContain("'@SUM(1+1)");
  });

  it('neutralises them in the CLI export too', async () => {
    const env = {
      ...testEnv(t.name),
      LOG_DATABASE_URL: `${MYSQL_ROOT}/${t.name}_log`,
      NOTIFICATION_DATABASE_URL: `${MYSQL_ROOT}/${t.name}_notification`,
    };
    const r = await runCli(env, ['messages', 'export', '--username', a.username]);
    expect(r.code).toBe(0);
    expect(formulaCells(r.stdout)).toEqual([]);
    expect(r.stdout).toContain(`'${FORMULA_EMAIL}`);
  });
});

describe('inbound simulate --text takes any value; what a recipient did, a tenant cannot undo', () => {
  let t: TestApp;
  let env: Record<string, string>;
  let a: Tenant;

  beforeAll(async () => {
    t = await startTestApp();
    env = {
      ...testEnv(t.name),
      LOG_DATABASE_URL: `${MYSQL_ROOT}/${t.name}_log`,
      NOTIFICATION_DATABASE_URL: `${MYSQL_ROOT}/${t.name}_notification`,
    };
    a = await createTenant(t);
    const added = await runCli(env, ['numbers', 'add', '--username', a.username, '--number', '260955000777']);
    expect(added.code).toBe(0);
  });
  afterAll(async () => t?.close());

  it.each(['help', '--x', '-h', '--help'])('stores the text %j as written', async (text) => {
    const r = await runCli(env, [
      'inbound',
      'simulate',
      '--from',
      '260971230001',
      '--to',
      '260955000777',
      '--text',
      text,
      '--json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).inbound[0].text).toBe(text);
  });

  it('refuses to lift a STOP through the API (403) or to create STOP_KEYWORD or BOUNCE (400); the CLI can lift it', async () => {
    const handset = '260971230099';
    const stop = await runCli(env, [
      'inbound',
      'simulate',
      '--from',
      handset,
      '--to',
      '260955000777',
      '--text',
      'STOP',
    ]);
    expect(stop.code).toBe(0);
    const del = await t.http().delete(`/api/v1/json/suppressions/sms/${handset}`).set('X-API-Key', a.key);
    expect(del.status).toBe(403);
    expect(del.body.error.code).toBe('FORBIDDEN');
    for (const reason of ['STOP_KEYWORD', 'BOUNCE']) {
      const add = await t
        .http()
        .post('/api/v1/json/suppressions')
        .set('X-API-Key', a.key)
        .send({ channel: 'sms', recipients: ['260971230098'], reason });
      expect(add.status).toBe(400);
      expect(add.body.error.details[0].field).toBe('reason');
    }
    const manual = await t
      .http()
      .post('/api/v1/json/suppressions')
      .set('X-API-Key', a.key)
      .send({ channel: 'sms', recipients: ['260971230097'] });
    expect(manual.status).toBe(200);
    expect(
      (await t.http().delete('/api/v1/json/suppressions/sms/260971230097').set('X-API-Key', a.key)).status,
    ).toBe(200);
    const lifted = await runCli(env, [
      'suppressions',
      'remove',
      '--username',
      a.username,
      '--channel',
      'sms',
      '--recipient',
      handset,
    ]);
    expect(lifted.code).toBe(0);
    expect(
      (await t.http().delete(`/api/v1/json/suppressions/sms/${handset}`).set('X-API-Key', a.key)).status,
    ).toBe(404);
  });
});

describe('search and export take only what they understand', () => {
  let t: TestApp;
  let a: Tenant;
  const get = (path: string) => t.http().get(path).set('X-API-Key', a.key);
  const cursorOf = (text: string) => Buffer.from(text).toString('base64url');

  beforeAll(async () => {
    t = await startTestApp();
    a = await createTenant(t);
    const sms = await t
      .http()
      .post('/api/v1/json/bulk/sms')
      .set('X-API-Key', a.key)
      .send({ from: 'ACME', to: ['260971000001', '260971000002', '260971000003'], message: 'Hi' });
    expect(sms.status).toBe(200);
  });
  afterAll(async () => t?.close());

  it.each([
    ['/api/v1/json/messages?stauts=FAILED', 'stauts'],
    ['/api/v1/json/messages/export?status=FAILED&chanel=sms', 'chanel'],
  ])('refuses an unknown parameter with 400 naming it: %s', async (path, field) => {
    const res = await get(path);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details).toContainEqual({ field, message: 'unknown field' });
  });

  it('refuses a cursor given under other filters, and one made up to point into the future', async () => {
    const first = await get('/api/v1/json/messages?limit=1&channel=sms');
    expect(first.status).toBe(200);
    const cursor = first.body.next_cursor as string;
    expect((await get(`/api/v1/json/messages?limit=1&channel=sms&cursor=${cursor}`)).status).toBe(200);
    const foreign = await get(`/api/v1/json/messages?limit=1&status=DELIVERED&cursor=${cursor}`);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.details[0].field).toBe('cursor');
    const [, id, tag] = Buffer.from(cursor, 'base64url').toString().split(':');
    const future = cursorOf(`${Date.now() + 365 * 86_400_000}:${id}:${tag}`);
    expect((await get(`/api/v1/json/messages?limit=1&channel=sms&cursor=${future}`)).status).toBe(400);
  });

  it('refuses a since that is not a date or a date and time with offset (2026-W01), instead of no filter', async () => {
    for (const since of ['2026-W01', '2026-001', '2026-02-30', '2026-11-22T08:00'])
      expect((await get(`/api/v1/json/inbound?since=${since}`)).status, since).toBe(400);
    expect((await get('/api/v1/json/inbound?since=2026-11-22')).status).toBe(200);
  });
});

describe('export slots are shared fairly', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  let port: number;
  const exportQueries = () => runningExportQueries(t);

  /** Starts an export and stops reading after its first chunk; answers its status (and how to hang up). */
  const startReading = (key: string) =>
    new Promise<{ status: number; hangUp: () => void }>((resolve) => {
      const req = httpRequest(
        { port, host: '127.0.0.1', path: EXPORT, headers: { 'X-API-Key': key } },
        (res) => {
          if (res.statusCode !== 200)
            return resolve({ status: res.statusCode ?? 0, hangUp: () => req.destroy() });
          res.once('data', () => {
            res.pause();
            resolve({ status: 200, hangUp: () => req.destroy() });
          });
        },
      );
      req.on('error', () => undefined);
      req.end();
    });

  beforeAll(async () => {
    // Two export slots in the process (a quarter of 8), one per account, stalls cut after 2 s.
    t = await startTestApp({ DB_POOL_SIZE: '8', EXPORT_STALL_SECONDS: '2' });
    a = await createTenant(t);
    b = await createTenant(t);
    await seedAccountMessages(t, {
      accountId: a.account.id,
      count: 40_000,
      firstId: 7_000_000_000n,
      start: new Date('2026-01-01T00:00:00Z'),
    });
    const server = t.app.getHttpServer();
    if (!server.listening) await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  }, 120_000);
  afterAll(async () => t?.close());

  it("keeps one account from taking every export slot, and frees a stalled export's slot", async () => {
    const first = await startReading(a.key);
    expect(first.status).toBe(200);
    // The same account's second export waits its turn; another account's export runs.
    const second = await startReading(a.key);
    expect(second.status).toBe(429);
    const other = await t.http().get(EXPORT).set('X-API-Key', b.key).buffer(true);
    expect(other.status).toBe(200);
    // The first client reads nothing more: after the stall time its query stops and its slot is free.
    const started = Date.now();
    await waitFor(
      async () => (await t.http().get(EXPORT).set('X-API-Key', a.key).buffer(true)).status === 200,
      15_000,
      'the stalled export to be stopped and its slot freed',
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(await exportQueries()).toEqual([]);
    first.hangUp();
  }, 60_000);

  it("counts an account's exports across API processes, and frees the slot when the export ends", async () => {
    // A second API process on the same databases and Redis.
    const other = await startTestApp({ DB_POOL_SIZE: '8', EXPORT_STALL_SECONDS: '2' }, t.name);
    try {
      const running = await startReading(a.key);
      expect(running.status).toBe(200);
      const elsewhere = await other.http().get(EXPORT).set('X-API-Key', a.key).buffer(true);
      expect(elsewhere.status).toBe(429);
      expect(elsewhere.body.error.code).toBe('RATE_LIMITED');
      expect(elsewhere.headers['retry-after']).toBe('5');
      // Another account is not held by it, in either process.
      expect((await other.http().get(EXPORT).set('X-API-Key', b.key).buffer(true)).status).toBe(200);
      running.hangUp();
      await waitFor(
        async () => (await other.http().get(EXPORT).set('X-API-Key', a.key).buffer(true)).status === 200,
        15_000,
        'the slot to be free once the first export ended',
      );
    } finally {
      // The suite's databases and Redis keys are the first app's to drop.
      await other.app.close();
    }
  }, 60_000);
});

describe('templates are capped per account', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ TEMPLATES_PER_ACCOUNT: '2' });
  });
  afterAll(async () => t?.close());

  it('refuses a template beyond TEMPLATES_PER_ACCOUNT with 403, and no other account is affected', async () => {
    const a = await createTenant(t);
    const b = await createTenant(t);
    const create = (tn: Tenant, name: string) =>
      t
        .http()
        .post('/api/v1/json/templates')
        .set('X-API-Key', tn.key)
        .send({ name, channel: 'sms', body: 'Hi' });
    expect((await create(a, 'one')).status).toBe(201);
    expect((await create(a, 'two')).status).toBe(201);
    const third = await create(a, 'three');
    expect(third.status).toBe(403);
    expect(third.body.error.code).toBe('FORBIDDEN');
    expect((await create(b, 'one')).status).toBe(201);
  });
});
