import { Logger } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { verifyCallback } from '../../src/modules/callbacks/signature.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { startHttpPeer, type HttpPeer } from '../support/http-peer.js';
import { startSmtpPeer, type SmtpPeer } from '../support/smtp-peer.js';
import { requestMessages } from '../support/message-probes.js';
import { startMailChatApp, startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import {
  balanceOf,
  callbackAttempts,
  ledgerAmounts,
  ledgerSum,
  messagesOfRequest,
  statusesOfRequest,
} from '../support/probes.js';
import { AccountsService } from '../../src/modules/accounts/accounts.service.js';

const SMS = '/api/v1/json/bulk/sms';

async function secretOf(t: TestApp, tenant: Tenant): Promise<string> {
  return t.app.get(AccountsService).callbackSecret(tenant.username);
}

describe('dispatch through the sandbox, with signed callbacks', () => {
  let t: TestApp;
  let tenant: Tenant;
  let hooks: HttpPeer;

  beforeAll(async () => {
    hooks = await startHttpPeer();
    t = await startTestApp({
      RUN_WORKERS: 'true',
      SANDBOX_DELIVERY_DELAY_MS: '100',
      CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
      CALLBACK_BACKOFF_BASE_MS: '50',
    });
    tenant = await createTenant(t, {
      balances: { sms: '100', email: '100', chat: '100' },
      prices: { sms: '1', email: '1', chat: '1' },
    });
  });
  afterAll(async () => {
    await t?.close();
    await hooks?.close();
  });

  it('takes a message to DELIVERED and posts a verified, signed callback for SENT and DELIVERED', async () => {
    hooks.setHandler(() => ({ status: 204 }));
    const res = await t
      .http()
      .post(SMS)
      .set('X-API-Key', tenant.key)
      .send({
        from: 'ACME',
        to: '260971234567',
        message: 'hi',
        callback_url: `${hooks.url}/dlr`,
        user_reference_id: 'cb-1',
      });
    expect(res.status).toBe(200);
    const ref = res.body.api_reference;
    await waitFor(async () => (await statusesOfRequest(t, ref))[0] === 'DELIVERED', 10_000, 'DELIVERED');
    const calls = await waitFor(
      async () => {
        const c = hooks.requests.filter((r) => (r.json as { api_reference?: string })?.api_reference === ref);
        return c.length >= 2 ? c : null;
      },
      10_000,
      'two callbacks',
    );
    const secret = await secretOf(t, tenant);
    for (const call of calls) {
      expect(call.method).toBe('POST');
      expect(
        verifyCallback(
          secret,
          String(call.headers['x-signature-timestamp']),
          String(call.headers['x-signature']),
          call.body,
        ),
      ).toBe(true);
      expect(
        verifyCallback(
          'not-the-secret',
          String(call.headers['x-signature-timestamp']),
          String(call.headers['x-signature']),
          call.body,
        ),
      ).toBe(false);
    }
    expect(calls.map((c) => (c.json as { status: string }).status).sort()).toEqual(['DELIVERED', 'SENT']);
    expect(calls[0].json).toMatchObject({
      event_id: expect.any(String),
      message_id: res.body.data[0].message_id,
      api_reference: ref,
      user_reference_id: 'cb-1',
      channel: 'sms',
      recipient: '260971234567',
      occurred_at: expect.stringMatching(/Z$/),
      test: false,
    });
    const [m] = await messagesOfRequest(t, ref);
    const recorded = await waitFor(
      async () => {
        const rows = (await callbackAttempts(t, m.id)).map(({ outcome, http_status }) => ({
          outcome,
          http_status,
        }));
        return rows.length >= 2 ? rows : null;
      },
      5000,
      'recorded attempts',
    );
    expect(recorded).toEqual([
      { outcome: 'delivered', http_status: 204 },
      { outcome: 'delivered', http_status: 204 },
    ]);
  });

  it('ends a sandbox number ending in 0000 UNDELIVERED, with the reason, and does not refund it', async () => {
    const res = await t
      .http()
      .post(SMS)
      .set('X-API-Key', tenant.key)
      .send({ from: 'ACME', to: '260970000000', message: 'x' });
    const ref = res.body.api_reference;
    await waitFor(async () => (await statusesOfRequest(t, ref))[0] === 'UNDELIVERED', 10_000, 'UNDELIVERED');
    const [m] = await messagesOfRequest(t, ref);
    expect(m.reason).toBe('SANDBOX_UNDELIVERED');
    expect(await ledgerAmounts(t, ref, 'refund')).toHaveLength(0);
  });

  it('retries a callback endpoint that fails twice, recording every attempt', async () => {
    let n = 0;
    hooks.setHandler((req) => {
      if ((req.json as { status?: string })?.status !== 'SENT') return { status: 200 };
      n += 1;
      return { status: n <= 2 ? 500 : 200 };
    });
    const res = await t
      .http()
      .post(SMS)
      .set('X-API-Key', tenant.key)
      .send({ from: 'ACME', to: '260971230001', message: 'x', callback_url: `${hooks.url}/flaky` });
    const [m] = await waitFor(async () => {
      const rows = (await messagesOfRequest(t, res.body.api_reference)).filter(
        (r) => r.status === 'DELIVERED',
      );
      return rows.length ? rows : null;
    });
    const attempts = await waitFor(
      async () => {
        const rows = await callbackAttempts(t, m.id);
        return rows.filter((r) => r.outcome === 'delivered').length >= 2 ? rows : null;
      },
      15_000,
      'callback attempts',
    );
    const sentEvent = attempts.filter((a) => a.attempt <= 3);
    expect(sentEvent.map((a) => a.http_status)).toEqual(expect.arrayContaining([500, 500, 200]));
    expect(attempts.filter((a) => a.outcome === 'http_error')).toHaveLength(2);
  });

  it('answers the state, cost and history of a message, and 404 for another account', async () => {
    const res = await t
      .http()
      .post(SMS)
      .set('X-API-Key', tenant.key)
      .send({ from: 'ACME', to: ['260971230002', 'bad'], message: 'x' });
    const id = res.body.data[0].message_id;
    await waitFor(async () => (await statusesOfRequest(t, res.body.api_reference))[0] === 'DELIVERED');
    const one = await t.http().get(`/api/v1/json/messages/${id}`).set('X-API-Key', tenant.key);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      message_id: id,
      status: 'DELIVERED',
      units: 1,
      cost: 1,
      currency: 'ZMW',
      api_reference: res.body.api_reference,
    });
    expect(one.body.history.map((h: { status: string }) => h.status)).toEqual([
      'ACKNOWLEDGED',
      'SENT',
      'DELIVERED',
    ]);
    const list = await t
      .http()
      .get(`/api/v1/json/messages?api_reference=${res.body.api_reference}&per_page=1&page=2`)
      .set('X-API-Key', tenant.key);
    expect(list.body).toMatchObject({
      total: 2,
      page: 2,
      per_page: 1,
      data: [{ recipient: 'bad', status: 'REJECTED', reason: 'INVALID_NUMBER' }],
    });
    const stranger = await createTenant(t);
    expect((await t.http().get(`/api/v1/json/messages/${id}`).set('X-API-Key', stranger.key)).status).toBe(
      404,
    );
    expect(
      (
        await t
          .http()
          .get(`/api/v1/json/messages?api_reference=${res.body.api_reference}`)
          .set('X-API-Key', stranger.key)
      ).status,
    ).toBe(404);
  });
});

describe('dispatch through real SMTP and HTTP providers', () => {
  let t: TestApp;
  let tenant: Tenant;
  let smtp: SmtpPeer;
  let chatApi: HttpPeer;

  beforeAll(async () => {
    smtp = await startSmtpPeer({
      rejectRecipients: new Set(['nobody@example.com']),
      tempFailRecipients: new Set(['busy@example.com']),
    });
    chatApi = await startHttpPeer((req) =>
      (req.json as { to?: string })?.to === '260971239999'
        ? { status: 400, body: { error: 'bad number' } }
        : { status: 202, body: { id: `chat-${Date.now()}` } },
    );
    t = await startMailChatApp(smtp.url, `${chatApi.url}/send`, { CHAT_API_TOKEN: 'chat-token' });
    tenant = await createTenant(t, {
      balances: { sms: '100', email: '100', chat: '100' },
      prices: { sms: '1', email: '1', chat: '1' },
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    await chatApi?.close();
  });

  it('hands an e-mail to the SMTP server with its HTML, and records the Message-ID', async () => {
    const res = await t.http().post('/api/v1/json/bulk/email').set('X-API-Key', tenant.key).send({
      from: 'news@acme.com',
      to: 'reader@example.com',
      subject: 'Hello',
      email_body: '<p>Hi <b>there</b></p>',
      reply_to: 'help@acme.com',
    });
    expect(res.status).toBe(200);
    const mail = await waitFor(
      async () => smtp.messages.find((m) => m.to.includes('reader@example.com')),
      10_000,
      'mail',
    );
    expect(mail.html).toBe('<p>Hi <b>there</b></p>');
    expect(mail.subject).toBe('Hello');
    const [m] = await waitFor(async () => {
      const rows = (await requestMessages(t, res.body.api_reference, 'status', 'provider_message_id')).filter(
        (r) => r.status === 'SENT',
      );
      return rows.length ? rows : null;
    });
    expect(m.provider_message_id).toBe(mail.messageId);
  });

  it('a passing refusal (451) keeps the message ACKNOWLEDGED; one warn line, the lookup and a metric say why while it is retried', async () => {
    const warnings: string[] = [];
    vi.spyOn(Logger.prototype, 'warn').mockImplementation(function (this: Logger, message: unknown) {
      warnings.push(String(message));
    });
    try {
      const res = await t
        .http()
        .post('/api/v1/json/bulk/email')
        .set('X-API-Key', tenant.key)
        .send({ from: 'news@acme.com', to: 'busy@example.com', subject: 'x', email_body: 'x' });
      const id = res.body.data[0].message_id as string;
      const body = await waitFor(
        async () => {
          const r = await t.http().get(`/api/v1/json/messages/${id}`).set('X-API-Key', tenant.key);
          return r.body.attempts >= 1 ? r.body : null;
        },
        10_000,
        'an attempt on the lookup',
      );
      expect(body).toMatchObject({ status: 'ACKNOWLEDGED', reason: null, last_error: 'SMTP_451' });
      const line = await waitFor(
        async () => warnings.find((w) => w.includes(`message ${id} `)),
        5000,
        'the warn line',
      );
      expect(line).toMatch(
        new RegExp(
          `^email via smtp: message ${id} of request ${res.body.api_reference}, job .*, attempt 1 of 8 not handed over: SMTP_451 \\(.*try again later.*\\); retrying$`,
        ),
      );
      // One line per attempt (the retry 2 s later writes its own, "attempt 2 of 8").
      expect(
        warnings.filter((w) => w.includes(`message ${id} `) && w.includes('attempt 1 of 8')),
      ).toHaveLength(1);
      const metrics = (await t.http().get('/metrics')).text;
      expect(metrics).toMatch(
        /bulk_transport_failures_total\{channel="email",transport="smtp",reason="SMTP_451",class="transient"\} [1-9]/,
      );
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('ends an e-mail the server refuses (550) REJECTED and refunds it exactly once', async () => {
    const res = await t
      .http()
      .post('/api/v1/json/bulk/email')
      .set('X-API-Key', tenant.key)
      .send({ from: 'news@acme.com', to: 'nobody@example.com', subject: 'x', email_body: 'x' });
    const ref = res.body.api_reference;
    await waitFor(async () => (await statusesOfRequest(t, ref))[0] === 'REJECTED', 10_000, 'REJECTED');
    expect(await ledgerAmounts(t, ref, 'refund')).toEqual(['1.000000']);
    expect(await balanceOf(t, tenant.account.id, 'email')).toBe(
      await ledgerSum(t, tenant.account.id, 'email'),
    );
  });

  it('posts chat messages to the HTTP provider with the bearer token; a 4xx ends REJECTED and refunded', async () => {
    const res = await t
      .http()
      .post('/api/v1/json/bulk/chat')
      .set('X-API-Key', tenant.key)
      .send({
        username: tenant.username,
        password: tenant.password,
        senderid: '260970000001',
        message: 'Hi 👋',
        recipient: ['260971230003', '260971239999'],
      });
    expect(res.status).toBe(200);
    await waitFor(
      async () => {
        const s = await statusesOfRequest(t, res.body.reference);
        return s.includes('SENT') && s.includes('REJECTED');
      },
      10_000,
      'SENT and REJECTED',
    );
    const call = chatApi.requests.find((r) => (r.json as { to?: string })?.to === '260971230003')!;
    expect(call.headers.authorization).toBe('Bearer chat-token');
    expect((call.json as { text: string }).text).toBe('Hi 👋');
    expect(await ledgerAmounts(t, res.body.reference, 'refund')).toHaveLength(1);
  });
});
