import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { endVerificationNow } from '../support/clock.js';
import { messageFields } from '../support/message-probes.js';
import { balanceOf } from '../support/probes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { verificationRow, verificationsTo } from '../support/verification-probes.js';

const VERIFY = '/api/v1/json/verify';

describe('verification: /api/v1/json/verify', () => {
  let t: TestApp;
  let tenant: Tenant;
  let n = 0;
  /**
   * A fresh number per case, so the per-number cap of one case never reaches another, each of a
   * prefix of its own, so the pumping guard's count per prefix stays out of these cases.
   */
  const number = () => `260971${String(100 + n++)}567`;

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t, { test: true, prices: { sms: '0.25', email: '0.10' } });
  });
  afterAll(async () => t?.close());

  const post = (path: string, body: object, key = tenant.key) =>
    t.http().post(path).set('X-API-Key', key).send(body);
  const get = (path: string, key = tenant.key) => t.http().get(path).set('X-API-Key', key);
  const testKey = () => tenant.test!.key;

  it('sends a code through the SMS pipeline, charged, and keeps only its digest', async () => {
    const to = number();
    const before = await balanceOf(t, tenant.account.id);
    const res = await post(VERIFY, { to, from: 'Acme' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      verification_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      to,
      channel: 'sms',
      status: 'pending',
      expires_at: expect.any(String),
      message_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    const ttl = Date.parse(res.body.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(590_000);
    expect(ttl).toBeLessThanOrEqual(600_000);
    expect(Number(await balanceOf(t, tenant.account.id))).toBeCloseTo(Number(before) - 0.25, 5);
    // Until it is handed over, the message's own text holds the code; the row only its digest.
    const msg = await messageFields(t, { uuid: res.body.message_id }, 'body', 'status');
    expect(msg.status).toBe('ACKNOWLEDGED');
    const code = /^Your code is (\d{6})$/.exec(msg.body)![1];
    const row = (await verificationRow(t, res.body.verification_id))!;
    expect(Buffer.isBuffer(row.code_hash) && row.code_hash.length).toBe(32);
    expect(JSON.stringify(row)).not.toContain(code);

    const wrong = await post(`${VERIFY}/${res.body.verification_id}/check`, {
      code: code === '000000' ? '111111' : '000000',
    });
    expect(wrong.status).toBe(200);
    expect(wrong.body).toEqual({
      verification_id: res.body.verification_id,
      status: 'pending',
      attempts_remaining: 4,
    });
    const right = await post(`${VERIFY}/${res.body.verification_id}/check`, { code });
    expect(right.body).toEqual({
      verification_id: res.body.verification_id,
      status: 'approved',
      attempts_remaining: 4,
    });
    const again = await post(`${VERIFY}/${res.body.verification_id}/check`, { code });
    expect(again.status).toBe(409);
    expect(again.body.error).toEqual({
      code: 'VERIFICATION_CLOSED',
      details: [{ field: 'status', message: 'approved' }],
    });
    const shown = await get(`${VERIFY}/${res.body.verification_id}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({
      status: 'approved',
      to,
      channel: 'sms',
      message_id: res.body.message_id,
    });
    expect(JSON.stringify(shown.body)).not.toContain(code);
  });

  it('gives a test key the code as test_code, sending and charging nothing', async () => {
    const before = await balanceOf(t, tenant.account.id);
    const res = await post(VERIFY, { to: number(), code_length: 4, message: 'Acme: {{code}}' }, testKey());
    expect(res.status).toBe(201);
    expect(res.body.test_code).toMatch(/^\d{4}$/);
    expect(await balanceOf(t, tenant.account.id)).toBe(before);
    const ok = await post(
      `${VERIFY}/${res.body.verification_id}/check`,
      { code: res.body.test_code },
      testKey(),
    );
    expect(ok.body.status).toBe('approved');
    // A start repeated under its Idempotency-Key answers the first answer, without the code.
    const first = await t
      .http()
      .post(VERIFY)
      .set('X-API-Key', testKey())
      .set('Idempotency-Key', 'verify-once')
      .send({ to: number() });
    const again = await t
      .http()
      .post(VERIFY)
      .set('X-API-Key', testKey())
      .set('Idempotency-Key', 'verify-once')
      .send({ to: first.body.to });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const { test_code: code, ...rest } = first.body;
    expect(code).toMatch(/^\d{6}$/);
    expect(again.body).toEqual(rest);
    // A live key sees none of the test side's verifications.
    expect((await get(`${VERIFY}/${res.body.verification_id}`)).status).toBe(404);
  });

  it('closes a verification after the fifth wrong code', async () => {
    const res = await post(VERIFY, { to: number() }, testKey());
    const wrong = res.body.test_code === '000000' ? '111111' : '000000';
    const answers = [];
    for (let i = 0; i < 5; i++)
      answers.push(
        (await post(`${VERIFY}/${res.body.verification_id}/check`, { code: wrong }, testKey())).body,
      );
    expect(answers.map((a) => [a.status, a.attempts_remaining])).toEqual([
      ['pending', 4],
      ['pending', 3],
      ['pending', 2],
      ['pending', 1],
      ['max_attempts_reached', 0],
    ]);
    const late = await post(
      `${VERIFY}/${res.body.verification_id}/check`,
      { code: res.body.test_code },
      testKey(),
    );
    expect(late.status).toBe(409);
    expect(late.body.error.details).toEqual([{ field: 'status', message: 'max_attempts_reached' }]);
  });

  it('counts wrong codes checked at once one by one: exactly 5 are taken', async () => {
    const res = await post(VERIFY, { to: number() }, testKey());
    const wrong = res.body.test_code === '000000' ? '111111' : '000000';
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        post(`${VERIFY}/${res.body.verification_id}/check`, { code: wrong }, testKey()),
      ),
    );
    const taken = answers.filter((a) => a.status === 200).map((a) => a.body.attempts_remaining);
    expect(taken.sort()).toEqual([0, 1, 2, 3, 4]);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(5);
  });

  it('lets 5 of 10 starts to one number at once through, leaving one pending', async () => {
    const to = number();
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(VERIFY, { to }, testKey())));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(5);
    expect(await verificationsTo(t, tenant.account.id, to)).toEqual({ all: 5, pending: 1 });
  });

  it('answers expired past expires_at, then 409', async () => {
    const res = await post(VERIFY, { to: number(), ttl_seconds: 60 }, testKey());
    await endVerificationNow(t, res.body.verification_id);
    const check = await post(
      `${VERIFY}/${res.body.verification_id}/check`,
      { code: res.body.test_code },
      testKey(),
    );
    expect(check.body).toMatchObject({ status: 'expired' });
    expect(
      (await post(`${VERIFY}/${res.body.verification_id}/check`, { code: res.body.test_code }, testKey()))
        .status,
    ).toBe(409);
  });

  it('replaces a pending verification by a new start to the same number', async () => {
    const to = number();
    const first = await post(VERIFY, { to }, testKey());
    const second = await post(VERIFY, { to }, testKey());
    const old = await post(
      `${VERIFY}/${first.body.verification_id}/check`,
      { code: first.body.test_code },
      testKey(),
    );
    expect(old.status).toBe(409);
    expect(old.body.error.details).toEqual([{ field: 'status', message: 'canceled' }]);
    const now = await post(
      `${VERIFY}/${second.body.verification_id}/check`,
      { code: second.body.test_code },
      testKey(),
    );
    expect(now.body.status).toBe('approved');
  });

  it('cancels a pending verification', async () => {
    const res = await post(VERIFY, { to: number() }, testKey());
    const cancel = await post(`${VERIFY}/${res.body.verification_id}/cancel`, {}, testKey());
    expect(cancel.status).toBe(200);
    expect(cancel.body).toMatchObject({
      verification_id: res.body.verification_id,
      status: 'canceled',
      attempts_remaining: 5,
    });
    expect((await post(`${VERIFY}/${res.body.verification_id}/cancel`, {}, testKey())).status).toBe(409);
  });

  it('refuses a sixth start to one number in 10 minutes, sending and charging nothing', async () => {
    const to = number();
    for (let i = 0; i < 5; i++) expect((await post(VERIFY, { to })).status).toBe(201);
    const before = await balanceOf(t, tenant.account.id);
    const sixth = await post(VERIFY, { to });
    expect(sixth.status).toBe(429);
    expect(sixth.body.error.code).toBe('TOO_MANY_VERIFICATIONS');
    expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(590);
    expect(await balanceOf(t, tenant.account.id)).toBe(before);
    expect(await verificationsTo(t, tenant.account.id, to)).toEqual({ all: 5, pending: 1 });
  });

  it('answers 422 naming to when the pipeline rejects the recipient, leaving nothing pending', async () => {
    const to = number();
    const suppressed = await post('/api/v1/json/suppressions', { channel: 'sms', recipients: [to] });
    expect(suppressed.status).toBeLessThan(300);
    const res = await post(VERIFY, { to });
    expect(res.status).toBe(422);
    expect(res.body.error).toEqual({
      code: 'RECIPIENT_REJECTED',
      details: [{ field: 'to', message: 'SUPPRESSED' }],
    });
    expect(await verificationsTo(t, tenant.account.id, to)).toEqual({ all: 0, pending: 0 });
    const invalid = await post(VERIFY, { to: '12' });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.details).toEqual([{ field: 'to', message: 'INVALID_NUMBER' }]);
  });

  it('refuses a text without {{code}} and out-of-range fields with 400', async () => {
    const noCode = await post(VERIFY, { to: number(), message: 'Hello' });
    expect(noCode.status).toBe(400);
    expect(noCode.body.error.details).toEqual([{ field: 'message', message: 'must hold {{code}}' }]);
    for (const body of [
      { code_length: 3 },
      { code_length: 11 },
      { ttl_seconds: 59 },
      { ttl_seconds: 3601 },
      { channel: 'fax' },
    ]) {
      const res = await post(VERIFY, { to: number(), ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect((await post(`${VERIFY}/00000000-0000-4000-8000-000000000000/check`, { code: 'abc' })).status).toBe(
      400,
    );
    expect(
      (await post(`${VERIFY}/00000000-0000-4000-8000-000000000000/check`, { code: '1234' })).status,
    ).toBe(404);
  });

  it('sends a code by e-mail and by chat, and with a template', async () => {
    const mail = await post(VERIFY, { to: 'Someone@Example.COM', channel: 'email', from: 'codes@acme.test' });
    expect(mail.status).toBe(201);
    expect(mail.body).toMatchObject({
      to: 'Someone@example.com',
      channel: 'email',
      message_id: expect.stringMatching(/^\d+$/),
    });
    const sent = await messageFields(t, { id: mail.body.message_id }, 'body');
    expect(sent.body).toMatch(/^Your code is \d{6}$/);
    expect((await post(VERIFY, { to: 'a@example.com', channel: 'email' })).status).toBe(400);

    const chat = await post(VERIFY, { to: number(), channel: 'chat', from: '260970000001' });
    expect(chat.status).toBe(201);
    expect((await messageFields(t, { uuid: chat.body.message_id }, 'body')).body).toMatch(
      /^Your code is \d{6}$/,
    );
    expect((await post(VERIFY, { to: number(), channel: 'chat' })).body.error.details).toEqual([
      { field: 'from', message: 'required for chat' },
    ]);

    const tpl = await post('/api/v1/json/templates', {
      name: 'otp',
      channel: 'sms',
      body: 'Acme code {{code}}',
    });
    const viaTemplate = await post(VERIFY, { to: number(), template_id: tpl.body.template_id });
    expect(viaTemplate.status).toBe(201);
    expect((await messageFields(t, { uuid: viaTemplate.body.message_id }, 'body')).body).toMatch(
      /^Acme code \d{6}$/,
    );
  });
});
