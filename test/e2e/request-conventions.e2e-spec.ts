import { createConnection } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service.js';
import { BalanceService } from '../../src/modules/balance/balance.service.js';
import { IdempotencySweep } from '../../src/modules/idempotency/idempotency.sweep.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { idempotencyKeyCount } from '../support/account-probes.js';
import { ageIdempotencyKeys } from '../support/clock.js';
import { dropKeptAnswers } from '../support/direct-writes.js';
import { balanceOf, sendRequestCount } from '../support/probes.js';
import { startTestApp, uniqueName, type TestApp } from '../support/test-app.js';

const SMS = '/api/v1/json/bulk/sms';
const XML_SMS = '/api/v1/xml/bulk/sms';
const TEMPLATES = '/api/v1/json/templates';
const SUPPRESSIONS = '/api/v1/json/suppressions';
const body = (n = 1) => ({ from: 'ACME', to: ['260971234567'], message: `hello ${n}` });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Two API instances on the same databases and Redis prefix (`a` and `b`): nothing of a key is
 * held in a process's memory, so two instances in one test process stand for two processes.
 * A restart is an instance closed and a new one started on the same databases.
 */
describe('Request conventions across API processes', () => {
  const name = uniqueName();
  let a: TestApp;
  let b: TestApp;

  const sendRequests = (t: Tenant) => sendRequestCount(a, t.account.id);
  const smsBalance = (t: Tenant) => balanceOf(a, t.account.id, 'sms');

  beforeAll(async () => {
    a = await startTestApp({}, name);
    b = await startTestApp({}, name);
  });

  afterAll(async () => {
    await b?.app.close();
    await a?.close();
  });

  describe('Idempotency-Key', () => {
    it('answers the same key and body with the first answer (status and body) and Idempotent-Replayed: true, from another process and after a restart; sent and charged once', async () => {
      const t = await createTenant(a, { balances: { sms: '100' } });
      const post = (app: TestApp, payload: object) =>
        app.http().post(SMS).set('X-API-Key', t.key).set('Idempotency-Key', 'order-1').send(payload);
      // The process that answers first is stopped before the retries.
      const old = await startTestApp({}, name);
      const first = await post(old, body());
      await old.app.close();
      expect(first.status).toBe(200);
      expect(first.headers['idempotent-replayed']).toBeUndefined();

      const restarted = await startTestApp({}, name);
      try {
        const afterRestart = await post(restarted, body());
        expect(afterRestart.status).toBe(200);
        expect(afterRestart.headers['idempotent-replayed']).toBe('true');
        expect(afterRestart.headers['content-type']).toMatch(/^application\/json/);
        expect(afterRestart.text).toBe(first.text);
      } finally {
        await restarted.app.close();
      }
      // The same JSON with its keys in another order is the same body.
      const { message, to, from } = body();
      const again = await post(b, { message, to, from });
      expect(again.status).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.text).toBe(first.text);
      expect(await sendRequests(t)).toBe(1);
      expect(Number(await smsBalance(t))).toBe(100 - 0.25);
    });

    it('answers the same key with another body (or on another route) with 422 IDEMPOTENCY_KEY_REUSED, creating nothing', async () => {
      const t = await createTenant(a);
      const post = (path: string, payload: object) =>
        a.http().post(path).set('X-API-Key', t.key).set('Idempotency-Key', 'k-422').send(payload);
      expect((await post(SMS, body(1))).status).toBe(200);
      const other = await post(SMS, body(2));
      expect(other.status).toBe(422);
      expect(other.body).toMatchObject({
        success: false,
        error: { code: 'IDEMPOTENCY_KEY_REUSED', details: [{ field: 'Idempotency-Key' }] },
      });
      expect(other.body.request_id).toBeTruthy();
      expect(
        (
          await post('/api/v1/json/bulk/email', {
            from: 'a@acme.test',
            to: ['x@example.com'],
            subject: 's',
            message: 'm',
          })
        ).status,
      ).toBe(422);
      expect(await sendRequests(t)).toBe(1);
    });

    it('answers 409 REQUEST_IN_PROGRESS to a second API process while the first request with the key is still being processed', async () => {
      const t = await createTenant(a);
      const send = (app: TestApp) =>
        app.http().post(SMS).set('X-API-Key', t.key).set('Idempotency-Key', 'slow').send(body());
      // Hold the account's SMS balance row, so the first send waits inside its transaction.
      const holder = await createConnection({ host: '127.0.0.1', user: 'root', database: name });
      try {
        await holder.query('START TRANSACTION');
        await holder.query(
          "SELECT balance FROM account_channels WHERE account_id = ? AND channel = 'sms' FOR UPDATE",
          [t.account.id],
        );
        const first = send(a).then((r) => r);
        // The first has taken the key once its row exists.
        for (let i = 0; i < 100; i++) {
          if ((await idempotencyKeyCount(a, t.account.id)) > 0) break;
          await sleep(20);
        }
        const second = await send(b);
        expect(second.status).toBe(409);
        expect(second.body.error.code).toBe('REQUEST_IN_PROGRESS');
        await holder.query('COMMIT');
        expect((await first).status).toBe(200);
      } finally {
        await holder.end();
      }
      const third = await send(b);
      expect(third.status).toBe(200);
      expect(third.headers['idempotent-replayed']).toBe('true');
      expect(await sendRequests(t)).toBe(1);
    });

    it('sends once when two API processes receive the same key at once: the other answer is 409 or the replay', async () => {
      const t = await createTenant(a, { balances: { sms: '100' } });
      for (let round = 0; round < 5; round++) {
        const key = `race-${round}`;
        const answers = await Promise.all(
          [a, b, a, b].map((app) =>
            app.http().post(SMS).set('X-API-Key', t.key).set('Idempotency-Key', key).send(body(round)),
          ),
        );
        const fresh = answers.filter(
          (r) => r.status === 200 && r.headers['idempotent-replayed'] === undefined,
        );
        expect(fresh).toHaveLength(1);
        for (const r of answers.filter((x) => x !== fresh[0])) {
          if (r.status === 409) expect(r.body.error.code).toBe('REQUEST_IN_PROGRESS');
          else {
            expect(r.status).toBe(200);
            expect(r.headers['idempotent-replayed']).toBe('true');
            expect(r.text).toBe(fresh[0].text);
          }
        }
      }
      expect(await sendRequests(t)).toBe(5);
      expect(Number(await smsBalance(t))).toBe(100 - 5 * 0.25);
    });

    it('answers with the send already made, not a second one, when its process died after the commit and before its answer was kept', async () => {
      const t = await createTenant(a, { balances: { sms: '100' } });
      const send = (app: TestApp) =>
        app.http().post(SMS).set('X-API-Key', t.key).set('Idempotency-Key', 'crash').send(body());
      const first = await send(a);
      expect(first.status).toBe(200);
      await dropKeptAnswers(a, t.account.id);
      const retry = await send(b);
      expect(retry.status).toBe(200);
      expect(retry.body.api_reference).toBe(first.body.api_reference);
      expect(retry.body.data).toEqual(first.body.data);
      expect(await sendRequests(t)).toBe(1);
      expect(Number(await smsBalance(t))).toBe(100 - 0.25);
      // Its answer is kept now: the next retry is a plain replay.
      expect((await send(a)).headers['idempotent-replayed']).toBe('true');
    });

    it('treats a key past its 24 h as new (another body is sent, not 422), and the sweep deletes such keys', async () => {
      const t = await createTenant(a);
      const send = (n: number) =>
        a.http().post(SMS).set('X-API-Key', t.key).set('Idempotency-Key', 'old').send(body(n));
      expect((await send(1)).status).toBe(200);
      const age = () => ageIdempotencyKeys(a, t.account.id, 25);
      await age();
      const later = await send(2);
      expect(later.status).toBe(200);
      expect(later.headers['idempotent-replayed']).toBeUndefined();
      expect(await sendRequests(t)).toBe(2);
      await age();
      expect(await a.app.get(IdempotencySweep).sweep()).toBeGreaterThanOrEqual(1);
      expect(await idempotencyKeyCount(a, t.account.id)).toBe(0);
    });

    it('refuses a malformed Idempotency-Key with 400 VALIDATION_ERROR in the envelope, before anything is stored', async () => {
      const t = await createTenant(a);
      for (const bad of ['x'.repeat(256), 'tab\there', '']) {
        const res = await a.http().post(SMS).set('X-API-Key', t.key).set('Idempotency-Key', bad).send(body());
        expect(res.status, JSON.stringify(bad)).toBe(400);
        expect(res.body.error).toMatchObject({
          code: 'VALIDATION_ERROR',
          details: [{ field: 'Idempotency-Key' }],
        });
      }
      const xml = await a
        .http()
        .post(XML_SMS)
        .set('X-API-Key', t.key)
        .set('Idempotency-Key', 'x'.repeat(256))
        .set('Content-Type', 'application/xml')
        .send('<r><from>ACME</from><to>260971234567</to><message>hi</message><source>API</source></r>');
      expect(xml.status).toBe(400);
      expect(xml.text).toContain('VALIDATION_ERROR');
      expect(xml.text).toContain('Idempotency-Key');
      expect(
        (
          await a
            .http()
            .post(SMS)
            .set('X-API-Key', t.key)
            .set('Idempotency-Key', 'x'.repeat(255))
            .send(body())
        ).status,
      ).toBe(200);
      expect(await sendRequests(t)).toBe(1);
    });

    it('keeps no error answer: after a 402 the same key sends once the balance can pay, and a 400 frees the key for a corrected body', async () => {
      const t = await createTenant(a, { balances: { sms: '0' } });
      const send = (payload: object) =>
        a.http().post(SMS).set('X-API-Key', t.key).set('Idempotency-Key', 'retry-me').send(payload);
      expect((await send({ from: 'ACME', message: 'no recipient' })).status).toBe(400);
      expect((await send(body())).status).toBe(402);
      await a.app.get(BalanceService).topUp(t.account.id, 'sms', '10');
      const paid = await send(body());
      expect(paid.status).toBe(200);
      expect(paid.headers['idempotent-replayed']).toBeUndefined();
      expect((await send(body())).headers['idempotent-replayed']).toBe('true');
      expect(await sendRequests(t)).toBe(1);
    });

    it('replays template and suppression creations and XML sends, each with its own status and content type', async () => {
      const t = await createTenant(a);
      const template = { name: 'welcome', channel: 'sms', body: 'Hi {{name}}' };
      const post = (path: string, key: string, payload: object) =>
        a.http().post(path).set('X-API-Key', t.key).set('Idempotency-Key', key).send(payload);
      const created = await post(TEMPLATES, 'tpl', template);
      expect(created.status).toBe(201);
      const replayed = await post(TEMPLATES, 'tpl', template);
      expect([replayed.status, replayed.headers['idempotent-replayed'], replayed.text]).toEqual([
        201,
        'true',
        created.text,
      ]);

      const suppression = { channel: 'sms', recipients: ['260971111111'] };
      const added = await post(SUPPRESSIONS, 'sup', suppression);
      expect(added.status).toBe(200);
      expect((await post(SUPPRESSIONS, 'sup', suppression)).headers['idempotent-replayed']).toBe('true');

      const xmlBody =
        '<r><from>ACME</from><to>260971234567</to><message>hi</message><source>API</source></r>';
      const xml = () =>
        a
          .http()
          .post(XML_SMS)
          .set('X-API-Key', t.key)
          .set('Idempotency-Key', 'xml')
          .set('Content-Type', 'application/xml')
          .send(xmlBody);
      const firstXml = await xml();
      const againXml = await xml();
      expect(firstXml.status).toBe(200);
      expect([againXml.status, againXml.headers['idempotent-replayed'], againXml.text]).toEqual([
        200,
        'true',
        firstXml.text,
      ]);
      expect(againXml.headers['content-type']).toMatch(/^application\/xml/);
      expect(await sendRequests(t)).toBe(1);
    });

    it("keeps a test key's Idempotency-Keys apart from a live key's of the same account", async () => {
      const t = await createTenant(a);
      const { secret: testKey } = await a.app
        .get(ApiKeysService)
        .create({ username: t.username, name: 'tk', mode: 'test' });
      const live = await a
        .http()
        .post(SMS)
        .set('X-API-Key', t.key)
        .set('Idempotency-Key', 'shared')
        .send(body());
      const test = await a
        .http()
        .post(SMS)
        .set('X-API-Key', testKey)
        .set('Idempotency-Key', 'shared')
        .send(body());
      expect([live.status, test.status]).toEqual([200, 200]);
      expect(test.headers['idempotent-replayed']).toBeUndefined();
      expect(test.body.api_reference).not.toBe(live.body.api_reference);
    });
  });

  describe('RateLimit headers', () => {
    it('count down across two API processes on every answer (errors and replays included), refuse with 429 and Retry-After, and reset after the window', async () => {
      const t = await createTenant(a, { key: { rateLimit: { limit: 3, windowSeconds: 2 } } });
      const send = (app: TestApp, n: number) =>
        app.http().post(SMS).set('X-API-Key', t.key).set('Idempotency-Key', 'rl').send(body(n));
      // A send, its replay from the other process, then another body under the same key (422).
      const answers = [await send(a, 1), await send(b, 1), await send(a, 2), await send(b, 3)];
      expect(answers.map((r) => r.status)).toEqual([200, 200, 422, 429]);
      expect(answers.map((r) => r.headers['ratelimit-limit'])).toEqual(['3', '3', '3', '3']);
      expect(answers.map((r) => r.headers['ratelimit-remaining'])).toEqual(['2', '1', '0', '0']);
      const resets = answers.map((r) => Number(r.headers['ratelimit-reset']));
      for (const reset of resets) expect(reset).toBeGreaterThanOrEqual(0);
      for (const reset of resets.slice(0, 3)) expect(reset).toBeLessThanOrEqual(2);
      const refused = answers[3];
      expect(refused.body.error.code).toBe('RATE_LIMITED');
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(2);
      expect(Number(refused.headers['ratelimit-reset'])).toBe(retryAfter);

      await sleep(retryAfter * 1000 + 300);
      const afterReset = await send(b, 1);
      expect(afterReset.status).toBe(200);
      expect(afterReset.headers['ratelimit-remaining']).toBe('2');
      expect((await send(a, 1)).headers['ratelimit-remaining']).toBe('1');
    });
  });
});
