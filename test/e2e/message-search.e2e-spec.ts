import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BalanceService } from '../../src/modules/balance/balance.service.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { setMessageStatusDirectly } from '../support/direct-writes.js';
import { messageFields, requestMessages, runningExportQueries } from '../support/message-probes.js';
import { seedAccountMessages } from '../support/message-seed.js';
import { sendRequestFields } from '../support/probes.js';
import { MYSQL_ROOT, startTestApp, testEnv, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

const SEARCH = '/api/v1/json/messages';
const EXPORT = '/api/v1/json/messages/export';
const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
/** The twelve columns of the search, the two chat-to-SMS fallback links, then the SMPP id. */
const HEADER =
  'message_id,api_reference,user_reference_id,channel,recipient,status,reason,units,cost,currency,created_at,updated_at,' +
  'fallback_message_id,fallback_of,smpp_message_id';

describe('message search, export and request summaries', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  let smsRef: string;
  let emailRef: string;

  const get = (path: string, key = a.key) => t.http().get(path).set('X-API-Key', key);
  const ids = (body: { data: Array<{ message_id: string }> }) => body.data.map((m) => m.message_id);

  /** Every page of a search, following next_cursor. */
  async function pageAll(query: string, key = a.key) {
    const seen: Array<{ message_id: string; status: string; channel: string }> = [];
    let cursor: string | null = null;
    for (;;) {
      const res = await get(`${SEARCH}?${query}${cursor ? `&cursor=${cursor}` : ''}`, key);
      expect(res.status).toBe(200);
      seen.push(...res.body.data);
      cursor = res.body.next_cursor;
      if (!cursor) return seen;
    }
  }

  function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const env = {
      PATH: process.env.PATH ?? '',
      ...testEnv(t.name),
      LOG_DATABASE_URL: `${MYSQL_ROOT}/${t.name}_log`,
      NOTIFICATION_DATABASE_URL: `${MYSQL_ROOT}/${t.name}_notification`,
    };
    return new Promise((resolve) =>
      execFile(process.execPath, [CLI, ...args], { env, timeout: 25_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
      ),
    );
  }

  beforeAll(async () => {
    // A pool of 8 leaves room for two exports at a time (a quarter of it), both of one account here.
    t = await startTestApp({ DB_POOL_SIZE: '8', EXPORTS_PER_ACCOUNT: '2' });
    a = await createTenant(t);
    b = await createTenant(t);
    const sms = await t
      .http()
      .post('/api/v1/json/bulk/sms')
      .set('X-API-Key', a.key)
      .send({
        from: 'ACME',
        to: ['260971000001', '260971000002', '12'],
        message: 'Hello',
        user_reference_id: 'inv, "7"',
      });
    expect(sms.status).toBe(200);
    smsRef = sms.body.api_reference;
    const email = await t
      .http()
      .post('/api/v1/json/bulk/email')
      .set('X-API-Key', a.key)
      .send({
        from: 'noreply@acme.example.com',
        subject: 'Hi',
        email_body: '<p>Hi</p>',
        to: ['one@acme.example.com', 'two@acme.example.com'],
      });
    expect(email.status).toBe(200);
    emailRef = email.body.api_reference;
    // One message delivered, as a receipt would leave it.
    await setMessageStatusDirectly(t, smsRef, '260971000002', 'DELIVERED');
  });
  afterAll(async () => t?.close());

  describe('GET /api/v1/json/messages', () => {
    it('lists every message of the account, oldest first, with next_cursor null at the end', async () => {
      const res = await get(SEARCH);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ limit: 100, next_cursor: null });
      expect(res.body.data).toHaveLength(5);
      expect(res.body.data.map((m: { api_reference: string }) => m.api_reference)).toEqual([
        smsRef,
        smsRef,
        smsRef,
        emailRef,
        emailRef,
      ]);
      expect(res.body.data[0]).toMatchObject({ channel: 'sms', recipient: '260971000001', currency: 'ZMW' });
    });

    it('shows no message of another account', async () => {
      expect((await get(SEARCH, b.key)).body.data).toEqual([]);
      expect((await get(`${SEARCH}?api_reference=${smsRef}&limit=10`, b.key)).body.data).toEqual([]);
    });

    it('filters by status', async () => {
      const res = await get(`${SEARCH}?status=REJECTED`);
      expect(res.body.data).toHaveLength(1);
      expect(res.body.data[0]).toMatchObject({ recipient: '12', status: 'REJECTED' });
      expect((await get(`${SEARCH}?status=DELIVERED`)).body.data[0].recipient).toBe('260971000002');
    });

    it('filters by channel', async () => {
      const res = await get(`${SEARCH}?channel=email`);
      expect(res.body.data.map((m: { recipient: string }) => m.recipient)).toEqual([
        'one@acme.example.com',
        'two@acme.example.com',
      ]);
    });

    it('filters by recipient, with or without a leading +', async () => {
      expect((await get(`${SEARCH}?recipient=260971000001`)).body.data).toHaveLength(1);
      expect((await get(`${SEARCH}?recipient=%2B260971000001`)).body.data).toHaveLength(1);
      expect((await get(`${SEARCH}?recipient=260979999999`)).body.data).toEqual([]);
    });

    it('filters by user_reference_id and by api_reference', async () => {
      const byUser = await get(`${SEARCH}?user_reference_id=${encodeURIComponent('inv, "7"')}`);
      expect(byUser.body.data).toHaveLength(3);
      expect(
        byUser.body.data.every((m: { user_reference_id: string }) => m.user_reference_id === 'inv, "7"'),
      ).toBe(true);
      expect((await get(`${SEARCH}?user_reference_id=nothing`)).body.data).toEqual([]);
      const byRef = await get(`${SEARCH}?api_reference=${emailRef}&limit=100`);
      expect(byRef.body.data).toHaveLength(2);
      expect(byRef.body.next_cursor).toBeNull();
    });

    it('takes created_from as inclusive and created_to as exclusive', async () => {
      const row = await sendRequestFields(t, emailRef, 'created_at');
      const at = (row.created_at as Date).toISOString();
      expect((await get(`${SEARCH}?created_from=${at}`)).body.data).toHaveLength(2);
      expect((await get(`${SEARCH}?created_to=${at}`)).body.data).toHaveLength(3);
      expect((await get(`${SEARCH}?created_from=2999-01-01`)).body.data).toEqual([]);
      expect(
        (await get(`${SEARCH}?created_from=2000-01-01&created_to=2999-01-01T00:00:00Z`)).body.data,
      ).toHaveLength(5);
    });

    it('combines filters', async () => {
      const res = await get(`${SEARCH}?channel=sms&status=ACKNOWLEDGED&created_from=2000-01-01`);
      expect(res.body.data.map((m: { recipient: string }) => m.recipient)).toEqual(['260971000001']);
    });

    it('pages with cursor and limit, each message once', async () => {
      const first = await get(`${SEARCH}?limit=2`);
      expect(first.body.data).toHaveLength(2);
      expect(first.body.next_cursor).toEqual(expect.any(String));
      const all = await pageAll('limit=2');
      expect(all).toHaveLength(5);
      expect(new Set(all.map((m) => m.message_id)).size).toBe(5);
      expect(all.slice(0, 2).map((m) => m.message_id)).toEqual(ids(first.body));
    });

    it('lists newest first with order=desc, paging each message once; asc is the default', async () => {
      const asc = ids((await get(SEARCH)).body);
      expect(ids((await get(`${SEARCH}?order=asc`)).body)).toEqual(asc);
      const desc = await pageAll('order=desc&limit=2');
      expect(desc.map((m) => m.message_id)).toEqual([...asc].reverse());
      const filtered = await pageAll('order=desc&limit=1&channel=sms');
      expect(filtered.map((m) => m.message_id)).toEqual(asc.slice(0, 3).reverse());
    });

    it('refuses an unknown order, and a cursor of one order given with the other', async () => {
      const bad = await get(`${SEARCH}?order=newest`);
      expect(bad.status).toBe(400);
      expect(bad.body.error.details).toContainEqual({ field: 'order', message: 'order must be asc or desc' });
      const cursor = (await get(`${SEARCH}?order=desc&limit=1`)).body.next_cursor as string;
      const crossed = await get(`${SEARCH}?limit=1&cursor=${cursor}`);
      expect(crossed.status).toBe(400);
      expect(crossed.body.error.details[0].field).toBe('cursor');
      // page and per_page list one request in its own order: order belongs to cursor paging.
      expect((await get(`${SEARCH}?api_reference=${smsRef}&page=1&order=desc`)).status).toBe(400);
    });

    it('visits every message exactly once while new messages arrive between pages', async () => {
      const c = await createTenant(t, { balances: { sms: '1000' } });
      const send = (n: number) =>
        t
          .http()
          .post('/api/v1/json/bulk/sms')
          .set('X-API-Key', c.key)
          .send({
            from: 'ACME',
            to: Array.from({ length: n }, (_, i) => `2609720${String(i).padStart(5, '0')}`),
            message: 'x',
          });
      const before: string[] = [];
      for (let i = 0; i < 4; i++)
        before.push(...(await send(5)).body.data.map((m: { message_id: string }) => m.message_id));
      const arrived: string[] = [];
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await get(`${SEARCH}?limit=3${cursor ? `&cursor=${cursor}` : ''}`, c.key);
        seen.push(...ids(res.body));
        cursor = res.body.next_cursor;
        if (arrived.length < 12)
          arrived.push(...(await send(2)).body.data.map((m: { message_id: string }) => m.message_id));
      } while (cursor);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen.filter((id) => before.includes(id))).toEqual(before);
      // Sends accepted while paging come after everything listed so far, and are reached too.
      expect(seen.filter((id) => !before.includes(id))).toEqual(arrived);
    });

    it('keeps the page-numbered list of one request (api_reference with page and per_page)', async () => {
      const res = await get(`${SEARCH}?api_reference=${smsRef}&page=2&per_page=2`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ api_reference: smsRef, page: 2, per_page: 2, total: 3 });
      expect(res.body.data).toHaveLength(1);
      expect((await get(`${SEARCH}?api_reference=${smsRef}`)).body).toMatchObject({ page: 1, total: 3 });
      expect((await get(`${SEARCH}?api_reference=${smsRef}`, b.key)).status).toBe(404);
    });

    it.each([
      ['limit=1001', 'limit'],
      ['limit=0', 'limit'],
      ['limit=abc', 'limit'],
      ['cursor=not-a-cursor', 'cursor'],
      ['cursor=!!', 'cursor'],
      ['status=LOST', 'status'],
      ['channel=fax', 'channel'],
      ['created_from=yesterday', 'created_from'],
      ['created_to=2026-11-22T10:00:00', 'created_to'],
      ['created_from=2026-02-30T00:00:00Z', 'created_from'],
      ['api_reference=12ab', 'api_reference'],
      ['page=1&cursor=abc', 'page'],
      ['page=1&status=SENT&api_reference=1', 'page'],
    ])('refuses %s with a 400 naming %s', async (query, field) => {
      const res = await get(`${SEARCH}?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    });
  });

  describe('GET /api/v1/json/bulk/{api_reference}', () => {
    it('sums up a request: counts per state, units, cost, refunds, currency', async () => {
      const res = await get(`/api/v1/json/bulk/${smsRef}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        api_reference: smsRef,
        channel: 'sms',
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        send_at: null,
        counts: {
          SCHEDULED: 0,
          ACKNOWLEDGED: 1,
          SENT: 0,
          DELIVERED: 1,
          UNDELIVERED: 0,
          EXPIRED: 0,
          FAILED: 0,
          REJECTED: 1,
          CANCELLED: 0,
        },
        units: 2,
        cost: 0.5,
        refunded: 0,
        currency: 'ZMW',
      });
    });

    it('shows refunds the ledger gave back', async () => {
      const [m] = (await requestMessages(t, emailRef, 'id', 'units')).filter((r) => r.units > 0);
      await t.ds.transaction((em) =>
        t.app.get(BalanceService).refundMessages(em, [
          {
            id: String(m.id),
            accountId: a.account.id,
            channel: 'email',
            cost: '0.05',
            sendRequestId: emailRef,
          },
        ]),
      );
      const res = await get(`/api/v1/json/bulk/${emailRef}`);
      expect(res.body).toMatchObject({ channel: 'email', units: 2, refunded: 0.05 });
    });

    it('answers 404 for a request of another account, or one that does not exist', async () => {
      expect((await get(`/api/v1/json/bulk/${smsRef}`, b.key)).status).toBe(404);
      expect((await get('/api/v1/json/bulk/123')).status).toBe(404);
      const bad = await get('/api/v1/json/bulk/not-a-reference');
      expect(bad.status).toBe(404);
      expect(bad.body.error.code).toBe('NOT_FOUND');
    });
  });

  describe('GET /api/v1/json/messages/export', () => {
    it('streams CSV as an attachment: a header line, then one quoted row per message', async () => {
      const res = await get(EXPORT).buffer(true);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toMatch(
        /^attachment; filename="messages-\d{8}T\d{6}Z\.csv"$/,
      );
      const lines = res.text.trimEnd().split('\n');
      expect(lines[0]).toBe(HEADER);
      expect(lines).toHaveLength(6);
      const [first] = (await get(`${SEARCH}?limit=1`)).body.data;
      const { updated_at } = await messageFields(t, { uuid: first.message_id }, 'updated_at');
      expect(lines[1]).toBe(
        `${first.message_id},${smsRef},"inv, ""7""",sms,260971000001,ACKNOWLEDGED,,1,0.25,ZMW,` +
          `${first.created_at},${updated_at.toISOString()},,,`,
      );
    });

    it('streams NDJSON: one object per line with the same fields', async () => {
      const res = await get(`${EXPORT}?format=ndjson&channel=email`).buffer(true);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
      const rows = res.text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(rows).toHaveLength(2);
      expect(Object.keys(rows[0])).toEqual(HEADER.split(','));
      expect(rows[0]).toMatchObject({ channel: 'email', api_reference: emailRef, units: 1, cost: 0.05 });
    });

    it('applies the search filters, and answers only the header for none', async () => {
      const rejected = await get(`${EXPORT}?status=REJECTED`).buffer(true);
      expect(rejected.text.trimEnd().split('\n')).toHaveLength(2);
      const none = await get(`${EXPORT}?user_reference_id=nothing`).buffer(true);
      expect(none.text).toBe(`${HEADER}\n`);
      expect((await get(`${EXPORT}?format=xlsx`)).status).toBe(400);
      expect((await get(EXPORT, b.key).buffer(true)).text).toBe(`${HEADER}\n`);
    });

    describe('with a large account', () => {
      let big: Tenant;
      let port: number;
      const exportQueries = () => runningExportQueries(t);

      /** Starts an export and stops reading after its first chunk; answers how to hang up. */
      const startReading = () =>
        new Promise<() => void>((resolve, reject) => {
          const req = httpRequest(
            { port, host: '127.0.0.1', path: EXPORT, headers: { 'X-API-Key': big.key } },
            (res) => {
              if (res.statusCode !== 200) reject(new Error(`export answered ${res.statusCode}`));
              res.once('data', () => {
                res.pause();
                resolve(() => req.destroy());
              });
            },
          );
          req.on('error', () => undefined);
          req.end();
        });

      beforeAll(async () => {
        big = await createTenant(t);
        await seedAccountMessages(t, {
          accountId: big.account.id,
          count: 150_000,
          firstId: 5_000_000_000n,
          start: new Date('2026-01-01T00:00:00Z'),
        });
        const server = t.app.getHttpServer();
        if (!server.listening) await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
        port = (server.address() as AddressInfo).port;
      }, 120_000);

      it('stops the query when the client goes away mid-export', async () => {
        const hangUp = await startReading();
        // The client stopped reading: MySQL holds the rest of the rows.
        expect(await exportQueries()).toHaveLength(1);
        hangUp();
        await waitFor(async () => (await exportQueries()).length === 0, 10_000, 'the export query to stop');
        // The service is none the worse: the next search answers.
        expect((await get(`${SEARCH}?limit=3`, big.key)).body.data).toHaveLength(3);
      });

      it('runs at most a quarter of the pool as exports at once, and answers 429 beyond', async () => {
        const hangUps = [await startReading(), await startReading()];
        const refused = await get(EXPORT, big.key);
        expect(refused.status).toBe(429);
        expect(refused.body.error.code).toBe('RATE_LIMITED');
        expect(refused.headers['retry-after']).toBe('5');
        // Searches still get connections while both exports hold theirs.
        expect((await get(`${SEARCH}?limit=3`, big.key)).status).toBe(200);
        for (const hangUp of hangUps) hangUp();
        await waitFor(async () => (await exportQueries()).length === 0, 10_000, 'the exports to stop');
        // The slots are given back just after the queries end (the process's, then the account's
        // lease in Redis): an export is answered again within a bound, not necessarily at once.
        const again = await waitFor(
          async () => {
            const r = await get(`${EXPORT}?status=REJECTED&recipient=260970000007`, big.key).buffer(true);
            return r.status === 429 ? undefined : r;
          },
          5_000,
          'an export slot to be free again',
        );
        expect(again.status).toBe(200);
        expect(again.text.trimEnd().split('\n')).toHaveLength(1 + 15);
      });
    });
  });

  describe('CLI messages export', () => {
    const dir = mkdtempSync(join(tmpdir(), 'export-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('writes CSV to standard output, the count on stderr', async () => {
      const r = await cli('messages', 'export', '--username', a.username);
      expect(r.code).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines[0]).toBe(HEADER);
      expect(lines).toHaveLength(6);
      expect(r.stderr).toContain('Exported 5 messages (csv) to standard output');
    });

    it('writes NDJSON to a file with the same filters as the API', async () => {
      const file = join(dir, 'email.ndjson');
      const r = await cli(
        'messages',
        'export',
        '--username',
        a.username,
        '--format',
        'ndjson',
        '--channel',
        'email',
        '--output',
        file,
      );
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
      const rows = readFileSync(file, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(rows.map((x: { recipient: string }) => x.recipient)).toEqual([
        'one@acme.example.com',
        'two@acme.example.com',
      ]);
      expect(r.stderr).toContain(`Exported 2 messages (ndjson) to ${file}`);
    });

    it('refuses a bad filter as a usage error (exit 2)', async () => {
      const r = await cli('messages', 'export', '--username', a.username, '--status', 'LOST');
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('status must be one of');
      expect(r.stdout).toBe('');
    });
  });
});
