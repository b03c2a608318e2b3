import { Logger } from '@nestjs/common';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { EximInstance, eximUnavailable } from '../support/exim-instance.js';
import { messageFields } from '../support/message-probes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

/**
 * E-mail through an independent MTA (Debian's Exim 4, STARTTLS with a self-signed certificate),
 * driven from the HTTP API with the dispatch workers in the app: what Exim received, and what
 * the message lookup, the logs, /health/detailed and /metrics say.
 */
const unavailable = eximUnavailable();
if (unavailable) console.warn(`\n!!! SKIPPED: e-mail through Exim — ${unavailable}\n`);

const EMAIL = '/api/v1/json/bulk/email';

describe.skipIf(unavailable)('e-mail through Exim', () => {
  let exim: EximInstance;
  beforeAll(async () => {
    exim = await EximInstance.start();
  });
  afterAll(async () => exim?.stop());

  describe('with the default TLS settings (certificate verified, no private CA)', () => {
    let t: TestApp;
    let tenant: Tenant;
    const errors: string[] = [];
    beforeAll(async () => {
      t = await startTestApp({ RUN_WORKERS: 'true', EMAIL_TRANSPORT: 'smtp', SMTP_URL: exim.url });
      tenant = await createTenant(t, { balances: { email: '10' }, prices: { email: '1' } });
      vi.spyOn(Logger.prototype, 'error').mockImplementation(function (this: Logger, message: unknown) {
        errors.push(String(message));
      });
    });
    afterAll(async () => {
      vi.restoreAllMocks();
      await t?.close();
    });

    it('keeps the message ACKNOWLEDGED, and the lookup, an error log line, the health check and a metric all name the certificate', async () => {
      const res = await t
        .http()
        .post(EMAIL)
        .set('X-API-Key', tenant.key)
        .send({ from: 'news@acme.example', to: 'jane@example.com', subject: 'Hi', email_body: '<p>Hi</p>' });
      expect(res.status).toBe(200);
      const id = res.body.data[0].message_id as string;

      const looked = await waitFor(
        async () => {
          const r = await t.http().get(`/api/v1/json/messages/${id}`).set('X-API-Key', tenant.key);
          return r.body.attempts >= 1 ? r.body : null;
        },
        20_000,
        'a failed attempt on the lookup',
      );
      expect(looked).toMatchObject({
        status: 'ACKNOWLEDGED',
        reason: null,
        attempts: 1,
        last_error: 'SMTP_TLS_CERTIFICATE',
      });

      const line = await waitFor(
        async () => errors.find((e) => e.includes(`message ${id} `)),
        5000,
        'the error line',
      );
      expect(line).toContain('email via smtp');
      expect(line).toContain(`request ${res.body.api_reference}`);
      expect(line).toMatch(/SMTP_TLS_CERTIFICATE \(.*self[- ]signed/i);

      const health = await t.http().get('/health/detailed');
      expect(health.status).toBe(503);
      expect(health.body.status).toBe('unhealthy');
      const client = health.body.checks.external_services.client_server;
      expect(client.status).toBe('unhealthy');
      expect(client.message).toContain('SMTP_TLS_CERTIFICATE');

      const metrics = (await t.http().get('/metrics')).text;
      expect(metrics).toMatch(
        /bulk_transport_failures_total\{channel="email",transport="smtp",reason="SMTP_TLS_CERTIFICATE",class="configuration"\} 1/,
      );

      // Not retried at the pace of a passing failure: the job waits a minute or more.
      const [job] = await t.queue('email').getDelayed();
      expect(job.attemptsMade).toBe(1);
      // Bull scores a delayed job by its due time (ms) × 0x1000.
      const score = Number(await t.queue('email').client.zscore(`${t.name}:email:delayed`, String(job.id)));
      expect(Math.floor(score / 0x1000) - Date.now()).toBeGreaterThan(50_000);
      expect(exim.mails().filter((m) => m.headers.to === 'jane@example.com')).toHaveLength(0);
    });
  });

  describe('with SMTP_TLS_CA naming the server certificate', () => {
    let t: TestApp;
    let tenant: Tenant;
    beforeAll(async () => {
      t = await startTestApp({
        RUN_WORKERS: 'true',
        EMAIL_TRANSPORT: 'smtp',
        SMTP_URL: exim.url,
        SMTP_TLS_CA: exim.certPath,
      });
      tenant = await createTenant(t, { balances: { email: '10' }, prices: { email: '1' } });
    });
    afterAll(async () => t?.close());
    afterEach(() => vi.restoreAllMocks());

    const lookup = (id: string) => t.http().get(`/api/v1/json/messages/${id}`).set('X-API-Key', tenant.key);

    it('delivers over TLS: display name, Message-ID from the API ids, HTML byte for byte, SENT with one attempt', async () => {
      const html =
        '<html>\n<body>\r\n<p>Statement for Jane — 12,50 €</p>\n<p>' +
        'z'.repeat(900) +
        '</p>\n</body>\n</html>\n';
      const res = await t.http().post(EMAIL).set('X-API-Key', tenant.key).send({
        from: 'ACME News <news@ACME.example>',
        to: 'jane@example.com',
        subject: 'Your statement',
        email_body: html,
        reply_to: 'help@acme.example',
      });
      expect(res.status).toBe(200);
      const id = res.body.data[0].message_id as string;
      const ref = res.body.api_reference as string;

      const mail = await waitFor(
        async () => exim.mails().find((m) => m.headers['x-message-id'] === id),
        20_000,
        'the mail in the Maildir',
      );
      expect(mail.headers['message-id']).toBe(`<${id}.${ref}@acme.example>`);
      expect(mail.from).toBe('ACME News <news@acme.example>');
      expect(mail.headers['return-path']).toBe('<news@acme.example>');
      expect(mail.headers['reply-to']).toBe('help@acme.example');
      expect(mail.headers['content-type']).toMatch(/^multipart\/alternative/);
      expect(mail.html).toBe(html);
      expect(mail.text).toContain('Statement for Jane — 12,50 €');
      expect(exim.log()).toMatch(
        new RegExp(`<= news@acme\\.example .*P=esmtps X=TLS1\\.[23].* id=${id}\\.${ref}@acme\\.example`),
      );

      const body = await waitFor(
        async () => ((await lookup(id)).body.status === 'SENT' ? (await lookup(id)).body : null),
        10_000,
        'SENT',
      );
      expect(body).toMatchObject({ status: 'SENT', attempts: 1, last_error: null });
      const row = await messageFields(t, { id }, 'provider_message_id');
      expect(row.provider_message_id).toBe(`<${id}.${ref}@acme.example>`);
    });

    it('ends the recipient Exim refuses with 550 REJECTED, and delivers the other one', async () => {
      const res = await t
        .http()
        .post(EMAIL)
        .set('X-API-Key', tenant.key)
        .send({
          from: 'news@acme.example',
          to: ['refuse@example.com', 'ok@example.com'],
          subject: 's',
          email_body: '<p>x</p>',
        });
      const [refused, ok] = res.body.data.map((d: { message_id: string }) => d.message_id);
      await waitFor(async () => (await lookup(refused)).body.status === 'REJECTED', 20_000, 'REJECTED');
      expect((await lookup(refused)).body).toMatchObject({
        status: 'REJECTED',
        reason: 'SMTP_550',
        attempts: 1,
        last_error: 'SMTP_550',
      });
      await waitFor(
        async () => exim.mails().find((m) => m.headers['x-message-id'] === ok),
        20_000,
        'the other mail',
      );
      expect(exim.log()).toMatch(/rejected RCPT <refuse@example\.com>: 5\.1\.1/);
    });

    it('refuses a From with a line break or two addresses (400), and accepts a quoted display name', async () => {
      for (const from of [
        'ACME <news@acme.example>\r\nBcc: x@evil.example',
        'a@acme.example, b@acme.example',
        'ACME <news@acme.example',
        '"ACME\n" <news@acme.example>',
      ]) {
        const res = await t
          .http()
          .post(EMAIL)
          .set('X-API-Key', tenant.key)
          .send({ from, to: 'jane@example.com', subject: 's', email_body: 'x' });
        expect(res.status, from).toBe(400);
        expect(res.body.error.details).toContainEqual({
          field: 'from',
          message: expect.stringContaining('display name'),
        });
      }
      const res = await t.http().post(EMAIL).set('X-API-Key', tenant.key).send({
        from: '"ACME, Inc." <news@acme.example>',
        to: 'quoted@example.com',
        subject: 's',
        email_body: 'x',
      });
      expect(res.status).toBe(200);
      const mail = await waitFor(
        async () => exim.mails().find((m) => m.headers['x-message-id'] === res.body.data[0].message_id),
        20_000,
        'mail',
      );
      expect(mail.from).toBe('"ACME, Inc." <news@acme.example>');
    });

    it('/health/detailed calls the SMTP server healthy once its certificate is trusted', async () => {
      const health = await t.http().get('/health/detailed');
      expect(health.body.checks.external_services.client_server).toMatchObject({ status: 'healthy' });
    });
  });
});
