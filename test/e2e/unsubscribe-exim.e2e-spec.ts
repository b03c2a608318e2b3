import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { EximInstance, eximUnavailable } from '../support/exim-instance.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

/**
 * E-mail opt-out through an independent MTA (Exim): the List-Unsubscribe headers of RFC 8058 as
 * Exim stored them, the one-click POST that suppresses the address, and a mailbox Exim refuses
 * for good (5.1.1) suppressed with reason BOUNCE.
 */
const unavailable = eximUnavailable();
if (unavailable) console.warn(`\n!!! SKIPPED: e-mail opt-out through Exim — ${unavailable}\n`);

const EMAIL = '/api/v1/json/bulk/email';
const BASE = 'https://api.acme.example';

describe.skipIf(unavailable)('e-mail opt-out through Exim', () => {
  let exim: EximInstance;
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    exim = await EximInstance.start();
    t = await startTestApp({
      RUN_WORKERS: 'true',
      EMAIL_TRANSPORT: 'smtp',
      SMTP_URL: exim.url,
      SMTP_TLS_CA: exim.certPath,
      PUBLIC_BASE_URL: `${BASE}/`,
    });
    tenant = await createTenant(t, { balances: { email: '10' }, prices: { email: '1' } });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await exim?.stop();
  });

  const send = (to: string[]) =>
    t
      .http()
      .post(EMAIL)
      .set('X-API-Key', tenant.key)
      .send({ from: 'news@acme.example', to, subject: 'News', email_body: '<p>News</p>' });
  const suppressed = async () =>
    (
      await t.http().get('/api/v1/json/suppressions?channel=email').set('X-API-Key', tenant.key)
    ).body.data.map((d: { recipient: string; reason: string }) => `${d.recipient}:${d.reason}`);

  it('carries List-Unsubscribe and List-Unsubscribe-Post; the one-click POST suppresses the address, no key needed', async () => {
    const res = await send(['reader@example.com']);
    const id = res.body.data[0].message_id as string;
    const mail = await waitFor(
      async () => exim.mails().find((m) => m.headers['x-message-id'] === id),
      20_000,
      'the mail in the Maildir',
    );
    expect(mail.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    const link = /^<(https:\/\/api\.acme\.example\/unsubscribe\/([0-9a-f-]{36}))>$/.exec(
      String(mail.headers['list-unsubscribe']),
    );
    expect(link, String(mail.headers['list-unsubscribe'])).not.toBeNull();
    // The token is not the message_id the API answered (nor anything else the reader was shown).
    expect(link![2]).not.toBe(id);
    expect(mail.text ?? '').not.toContain(link![2]);

    // What a mailbox provider sends (RFC 8058 §3.2): a form POST with no credentials.
    const path = new URL(link![1]).pathname;
    const click = await t.http().post(path).type('form').send('List-Unsubscribe=One-Click');
    expect(click.status).toBe(200);
    expect(click.body).toEqual({ success: true, added: 1 });
    expect(await suppressed()).toContain('reader@example.com:UNSUBSCRIBE');
    const again = await send(['reader@example.com', 'other@example.com']);
    expect(again.body.data[0]).toMatchObject({ status: 'REJECTED', reason: 'SUPPRESSED' });

    expect((await t.http().post('/unsubscribe/0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee')).status).toBe(404);
    expect((await t.http().post('/unsubscribe/not-a-token')).status).toBe(404);
  });

  it('suppresses a mailbox Exim refuses with 5.1.1 (reason BOUNCE); the next send to it is REJECTED, SUPPRESSED', async () => {
    const res = await send(['refuse@example.com']);
    const id = res.body.data[0].message_id as string;
    await waitFor(
      async () =>
        (await t.http().get(`/api/v1/json/messages/${id}`).set('X-API-Key', tenant.key)).body.status ===
        'REJECTED',
      20_000,
      'REJECTED',
    );
    expect(await suppressed()).toContain('refuse@example.com:BOUNCE');
    const again = await send(['refuse@example.com', 'fine@example.com']);
    expect(again.body.data[0]).toMatchObject({ status: 'REJECTED', reason: 'SUPPRESSED' });
  });
});
