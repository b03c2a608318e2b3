import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant } from '../../../test/factories/account.factory.js';
import { sendRequestCount } from '../../../test/support/probes.js';
import { BulkMessagingError, createClient } from '../src/index.js';
import { startProxy, startService, type RunningService } from './service.js';

const SMS = { from: 'ACME', to: ['260971234567'], message: 'Your code is 4321' };

/** Awaits a call that must fail, and answers the BulkMessagingError it threw. */
async function refusal(call: Promise<unknown>): Promise<BulkMessagingError> {
  const thrown = await call.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(thrown).toBeInstanceOf(BulkMessagingError);
  return thrown as BulkMessagingError;
}

describe('@bulk-messaging/client against the service', () => {
  let s: RunningService;

  beforeAll(async () => {
    s = await startService();
  });
  afterAll(async () => s?.close());

  const client = (
    options: { baseUrl?: string; apiKey?: string; retries?: number; timeoutMs?: number } = {},
  ) => createClient({ baseUrl: s.url, apiKey: s.tenant.key, baseDelayMs: 20, ...options });

  it('verifies a number with a code, looks a number up, and creates, changes, reads and deletes a webhook endpoint', async () => {
    const tenant = await createTenant(s.t, { test: true, prices: { sms: '0.25' } });
    const test = client({ apiKey: tenant.test!.key });
    const started = await test.startVerification({ to: '260971234567', code_length: 6 });
    expect(started).toMatchObject({ status: 'pending', channel: 'sms' });
    const code = (started as { test_code?: string }).test_code!;
    expect(code).toMatch(/^\d{6}$/);
    const wrong = await test.checkVerification(
      started.verification_id,
      code === '000000' ? '111111' : '000000',
    );
    expect(wrong).toMatchObject({ status: 'pending', attempts_remaining: 4 });
    expect(await test.checkVerification(started.verification_id, code)).toMatchObject({ status: 'approved' });
    expect((await test.getVerification(started.verification_id)).status).toBe('approved');
    const closed = await refusal(test.cancelVerification(started.verification_id));
    expect(closed.code).toBe('VERIFICATION_CLOSED');

    const live = client({ apiKey: tenant.key });
    expect(await live.lookupNumber('260971234567')).toMatchObject({
      number: '260971234567',
      valid: true,
      country: 'ZM',
      sms_price: 0.25,
    });
    const made = await live.createWebhook({
      url: 'https://hooks.acme.example/events',
      events: ['message.delivered'],
    });
    expect(made.secret).toMatch(/^whsec_/);
    expect((await live.listWebhooks()).webhooks.map((w) => w.webhook_id)).toEqual([made.webhook_id]);
    const changed = await live.updateWebhook(made.webhook_id, {
      url: 'https://hooks.acme.example/v2',
      events: ['message.delivered', 'message.undelivered'],
    });
    expect(changed).toMatchObject({
      url: 'https://hooks.acme.example/v2',
      events: ['message.delivered', 'message.undelivered'],
    });
    expect((await live.getWebhook(made.webhook_id)).url).toBe('https://hooks.acme.example/v2');
    expect((await live.listWebhookDeliveries(made.webhook_id, { limit: '10' })).data).toEqual([]);
    expect(await live.deleteWebhook(made.webhook_id)).toMatchObject({ webhook_id: made.webhook_id });
    expect((await live.listWebhooks()).webhooks).toEqual([]);
  });

  it('sends an SMS, an e-mail and a chat message, and reads the balance and the messages back', async () => {
    const api = client();
    const sms = await api.sendSms(SMS);
    expect(sms.api_reference).toMatch(/^\d{19}$/);
    expect(sms.data).toEqual([
      expect.objectContaining({ mobile_number: '260971234567', status: 'ACKNOWLEDGED' }),
    ]);

    const email = await api.sendEmail({
      from: 'billing@acme.example',
      to: 'jane@example.com',
      subject: 'Statement',
      email_body: '<p>Ready</p>',
    });
    expect(email.data[0]).toMatchObject({ email_address: 'jane@example.com', status: 'ACKNOWLEDGED' });

    const chat = await api.sendChat({
      username: s.tenant.username,
      password: s.tenant.password,
      senderid: '260971000000',
      recipient: ['260971234567'],
      message: 'Shipped',
    });
    expect(chat).toMatchObject({ status: 'success', count: 1 });

    const message = await api.getMessage(sms.data[0].message_id);
    expect(message).toMatchObject({
      channel: 'sms',
      recipient: '260971234567',
      api_reference: sms.api_reference,
    });
    const listed = await api.listMessages({ api_reference: sms.api_reference });
    expect(listed.data.map((m) => m.message_id)).toEqual([sms.data[0].message_id]);

    const balance = await api.getBalance();
    expect(balance.currency).toBe('ZMW');
    expect(balance.balances.sms.balance_value).toBeLessThan(100);
  });

  it("throws the service's refusal as a BulkMessagingError with its code, details and request id", async () => {
    const invalid = await refusal(client().sendSms({ ...SMS, to: ['12'] }));
    expect(invalid).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect(invalid.details.length).toBeGreaterThan(0);
    expect(invalid.requestId).toMatch(/\S/);

    const unknownKey = await refusal(client({ apiKey: 'bmk_live_not-a-real-key-0000000000' }).getBalance());
    expect(unknownKey).toMatchObject({ status: 401, code: 'INVALID_API_KEY' });

    const missing = await refusal(client().getMessage('01a200fe-0dfd-7511-ad60-13d93139bcee'));
    expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('retries a send whose answer never came with the same Idempotency-Key, and the service sends it once', async () => {
    const before = await sendRequestCount(s.t, s.tenant.account.id, 'sms');
    // The first attempt reaches the service, which accepts and charges it; its answer comes too late.
    const proxy = await startProxy(s.url, (n) => (n === 0 ? 'forward-late' : 'forward'));
    try {
      const sent = await client({ baseUrl: proxy.url, timeoutMs: 1_000 }).sendSms(SMS);
      expect(sent.data[0].status).toBe('ACKNOWLEDGED');
      // Two attempts, or more when the second came while the first was still being stored (409
      // REQUEST_IN_PROGRESS, retried too): all with one key.
      const keys = proxy.requests.map((r) => r.headers['idempotency-key']);
      expect(keys.length).toBeGreaterThanOrEqual(2);
      expect(keys[0]).toMatch(/\S/);
      expect(new Set(keys).size).toBe(1);
      expect(await sendRequestCount(s.t, s.tenant.account.id, 'sms')).toBe(before + 1);
    } finally {
      await proxy.close();
    }
  });

  it('gives every create an Idempotency-Key, and retries a verification start under it after a 503', async () => {
    const tenant = await createTenant(s.t, { test: true, balances: { sms: '10', email: '10', chat: '10' } });
    const unavailable = {
      status: 503,
      body: { success: false, message: 'Busy', error: { code: 'SERVICE_UNAVAILABLE', details: [] } },
    };
    const proxy = await startProxy(s.url, (n) => (n === 0 ? unavailable : 'forward'));
    try {
      const api = client({ baseUrl: proxy.url, apiKey: tenant.test!.key });
      const started = await api.startVerification({ to: '260971234567' });
      expect((started as { test_code?: string }).test_code).toMatch(/^\d+$/);
      const starts = proxy.requests.map((r) => r.headers['idempotency-key']);
      expect(starts).toHaveLength(2);
      expect(starts[0]).toMatch(/\S/);
      expect(new Set(starts).size).toBe(1);

      const live = client({ baseUrl: proxy.url, apiKey: tenant.key });
      await live.sendSms(SMS);
      await live.sendEmail({ from: 'a@acme.example', to: 'jane@example.com', subject: 'S', email_body: 'B' });
      await live.sendChat({
        username: tenant.username,
        password: tenant.password,
        senderid: '260971000000',
        recipient: ['260971234567'],
        message: 'Hi',
      });
      await live.createWebhook({ url: 'https://hooks.acme.example/e', events: ['*'] });
      const creates = proxy.requests.filter((r) => r.method === 'POST');
      expect(creates.map((r) => r.path)).toEqual([
        '/api/v1/json/verify',
        '/api/v1/json/verify',
        '/api/v1/json/bulk/sms',
        '/api/v1/json/bulk/email',
        '/api/v1/json/bulk/chat',
        '/api/v1/json/webhooks',
      ]);
      for (const r of creates) expect(r.headers['idempotency-key'], r.path).toMatch(/\S/);
    } finally {
      await proxy.close();
    }
  });

  it('retries a 503 and gives up after its retries with the last refusal', async () => {
    const unavailable = {
      status: 503,
      body: {
        success: false,
        message: 'Busy',
        error: { code: 'SERVICE_UNAVAILABLE', details: [] },
        request_id: 'r-1',
      },
    };
    const once = await startProxy(s.url, (n) => (n === 0 ? unavailable : 'forward'));
    const always = await startProxy(s.url, () => unavailable);
    try {
      expect((await client({ baseUrl: once.url }).sendSms(SMS)).data).toHaveLength(1);
      expect(once.requests).toHaveLength(2);

      const gaveUp = await refusal(client({ baseUrl: always.url, retries: 2 }).sendSms(SMS));
      expect(gaveUp).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', requestId: 'r-1' });
      expect(always.requests).toHaveLength(3);
      expect(new Set(always.requests.map((r) => r.headers['idempotency-key'])).size).toBe(1);
    } finally {
      await once.close();
      await always.close();
    }
  });

  it('waits out a 429 for its Retry-After, then sends', async () => {
    const limited = await createTenant(s.t, {
      balances: { sms: '100' },
      key: { rateLimit: { limit: 1, windowSeconds: 1 } },
    });
    const proxy = await startProxy(s.url, () => 'forward');
    try {
      const api = client({ baseUrl: proxy.url, apiKey: limited.key });
      await api.sendSms(SMS);
      await api.sendSms(SMS);
      // Three requests for two sends: the second was refused once (429), then sent.
      expect(proxy.requests).toHaveLength(3);
      expect(await sendRequestCount(s.t, limited.account.id, 'sms')).toBe(2);
    } finally {
      await proxy.close();
    }
  });

  it('says NETWORK_ERROR when nothing answers', async () => {
    const down = await refusal(client({ baseUrl: 'http://127.0.0.1:1', retries: 1 }).getBalance());
    expect(down).toMatchObject({ status: 0, code: 'NETWORK_ERROR' });
  });
});
