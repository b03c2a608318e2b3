import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EximInstance, eximUnavailable } from '../../../../test/support/exim-instance.js';
import { waitFor } from '../../../../test/support/wait.js';
import { SmtpTransport, type SmtpTlsOptions } from './smtp.transport.js';
import type { OutboundMessage } from './transport.js';

const unavailable = eximUnavailable();
if (unavailable) console.warn(`\n!!! SKIPPED: SmtpTransport against Exim — ${unavailable}\n`);

let seq = 0;
function email(overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  seq += 1;
  return {
    id: String(1000 + seq),
    uuid: `0190a3b4-0000-7000-8000-${String(seq).padStart(12, '0')}`,
    channel: 'email',
    recipient: `reader${seq}@example.com`,
    sender: 'news@acme.example',
    body: '<p>Hello</p>',
    subject: 'Greetings',
    apiReference: '1764184470578998353',
    ...overrides,
  };
}

describe.skipIf(unavailable)('SmtpTransport against Exim (STARTTLS, self-signed certificate)', () => {
  let exim: EximInstance;
  const opened: SmtpTransport[] = [];
  const make = (
    tls: SmtpTlsOptions,
    extra: { idleMs?: number; messageIdDomain?: string; ehloName?: string } = {},
  ) => {
    const t = new SmtpTransport({
      url: exim.url,
      pool: { maxConnections: 2, maxMessages: 50 },
      timeoutMs: 10_000,
      tls,
      ...extra,
    });
    opened.push(t);
    return t;
  };
  const delivered = (id: string) =>
    waitFor(
      async () => exim.mails().find((m) => m.headers['x-message-id'] === id),
      15_000,
      `mail ${id} in the Maildir`,
    );

  beforeAll(async () => {
    exim = await EximInstance.start();
  });
  afterAll(async () => {
    await Promise.all(opened.map((t) => t.close()));
    await exim?.stop();
  });

  it('refuses the self-signed certificate by default: a configuration failure, and health names it', async () => {
    const t = make({ mode: 'required' });
    const [result] = await t.send([email()]);
    expect(result).toMatchObject({ kind: 'transient', reason: 'SMTP_TLS_CERTIFICATE', configuration: true });
    expect(result.kind === 'transient' && result.detail).toMatch(/self[- ]signed/i);
    const health = await t.health();
    expect(health.status).toBe('down');
    expect(health.message).toContain('SMTP_TLS_CERTIFICATE');
    expect(exim.mails()).toHaveLength(0);
  });

  it('delivers over STARTTLS when the certificate is trusted through the CA setting, and health is up', async () => {
    const t = make({ mode: 'required', ca: readFileSync(exim.certPath, 'utf8') });
    const msg = email();
    const [result] = await t.send([msg]);
    expect(result).toEqual({
      kind: 'accepted',
      providerMessageId: `<${msg.id}.${msg.apiReference}@acme.example>`,
    });
    await delivered(msg.id);
    // Exim logs the cipher of the session that carried the message: it went over TLS.
    expect(exim.log()).toMatch(
      new RegExp(
        `<= news@acme\\.example .* X=TLS1\\.[23]:.* id=${msg.id}\\.${msg.apiReference}@acme\\.example`,
      ),
    );
    expect((await t.health()).status).toBe('up');
  });

  it('rejectUnauthorized=false delivers to the untrusted server too (an explicit, documented opt-out)', async () => {
    const t = make({ mode: 'required', rejectUnauthorized: false });
    const msg = email();
    expect((await t.send([msg]))[0].kind).toBe('accepted');
    await delivered(msg.id);
  });

  it('keeps the HTML body byte for byte (bare LF, CRLF, long lines, non-ASCII), with a text part and the display name', async () => {
    const t = make(
      { mode: 'required', ca: readFileSync(exim.certPath, 'utf8') },
      { messageIdDomain: 'mail.acme.example' },
    );
    const html = `<div>\n  one\r\n  two\n${'x'.repeat(1200)} Café — ✓ 🎉\r\n</div>\n.\n..trailing dots\n`;
    const msg = email({
      sender: '"ACME, News" <news@acme.example>',
      body: html,
      subject: 'Ünïcode ✓',
      replyTo: 'help@acme.example',
    });
    const [result] = await t.send([msg]);
    expect(result).toEqual({
      kind: 'accepted',
      providerMessageId: `<${msg.id}.${msg.apiReference}@mail.acme.example>`,
    });
    const mail = await delivered(msg.id);
    expect(mail.html).toBe(html);
    expect(Buffer.from(mail.html!, 'utf8').equals(Buffer.from(html, 'utf8'))).toBe(true);
    expect(mail.text).toContain('one two');
    expect(mail.headers['message-id']).toBe(`<${msg.id}.${msg.apiReference}@mail.acme.example>`);
    expect(mail.from).toBe('"ACME, News" <news@acme.example>');
    expect(mail.subject).toBe('Ünïcode ✓');
    expect(mail.replyTo).toBe('help@acme.example');
    expect(mail.headers['content-type']).toMatch(/^multipart\/alternative/);
    // The parts as Exim stored them: the HTML in base64 (every byte kept), the text alternative beside it.
    const raw = mail.bytes.toString('latin1');
    expect(raw).toMatch(/Content-Type: text\/html; charset=utf-8\r?\nContent-Transfer-Encoding: base64\r?\n/);
    expect(raw).toMatch(
      /Content-Type: text\/plain; charset=utf-8\r?\nContent-Transfer-Encoding: quoted-printable\r?\n/,
    );
    expect(mail.headers['return-path']).toBe('<news@acme.example>');
    expect(mail.headers['envelope-to']).toBe(msg.recipient);

    // Plain ASCII with short lines is where a mailer picks 7bit and the LF would become CRLF.
    const ascii = email({ body: '<p>one\ntwo</p>\n' });
    expect((await t.send([ascii]))[0].kind).toBe('accepted');
    expect((await delivered(ascii.id)).html).toBe('<p>one\ntwo</p>\n');
  });

  it("maps Exim's 550 for one recipient to a permanent refusal without touching the rest of the batch", async () => {
    const t = make({ mode: 'required', ca: readFileSync(exim.certPath, 'utf8') });
    const ok = email();
    const results = await t.send([email({ recipient: 'refuse@example.com' }), ok]);
    expect(results[0]).toMatchObject({ kind: 'permanent', reason: 'SMTP_550' });
    expect(results[0].kind === 'permanent' && results[0].detail).toContain('mailbox refused');
    expect(results[1].kind).toBe('accepted');
    await delivered(ok.id);
  });

  it('greets with the configured EHLO name instead of an address literal', async () => {
    const t = make(
      { mode: 'required', ca: readFileSync(exim.certPath, 'utf8') },
      { ehloName: 'mailer.acme.example' },
    );
    const msg = email();
    expect((await t.send([msg]))[0].kind).toBe('accepted');
    await delivered(msg.id);
    expect(exim.log()).toMatch(
      new RegExp(
        `<= news@acme\\.example H=\\(mailer\\.acme\\.example\\) \\[127\\.0\\.0\\.1\\].* id=${msg.id}\\.`,
      ),
    );
  });

  it('says QUIT to an idle pooled connection and again when closed', async () => {
    const quits = () => (exim.log().match(/closed by QUIT/g) ?? []).length;
    const t = make({ mode: 'required', ca: readFileSync(exim.certPath, 'utf8') }, { idleMs: 300 });
    const before = quits();
    expect((await t.send([email()]))[0].kind).toBe('accepted');
    await waitFor(async () => quits() > before, 10_000, 'QUIT after idling');
    const afterIdle = quits();
    expect((await t.send([email()]))[0].kind).toBe('accepted');
    await t.close();
    await waitFor(async () => quits() > afterIdle, 10_000, 'QUIT on close');
    expect(exim.log()).not.toMatch(/lost while reading message data|connection lost/i);
  });
});

describe.skipIf(unavailable)('SmtpTransport against Exim without STARTTLS', () => {
  let exim: EximInstance;
  const opened: SmtpTransport[] = [];
  beforeAll(async () => {
    exim = await EximInstance.start({ tls: false });
  });
  afterAll(async () => {
    await Promise.all(opened.map((t) => t.close()));
    await exim?.stop();
  });

  it('SMTP_TLS=required refuses to send in clear: a configuration failure', async () => {
    const t = new SmtpTransport({
      url: exim.url,
      pool: { maxConnections: 1, maxMessages: 10 },
      tls: { mode: 'required' },
    });
    opened.push(t);
    const [result] = await t.send([email()]);
    expect(result).toMatchObject({ kind: 'transient', reason: 'SMTP_TLS_UNAVAILABLE', configuration: true });
  });

  it('SMTP_TLS=opportunistic sends in clear when the server offers no STARTTLS', async () => {
    const t = new SmtpTransport({
      url: exim.url,
      pool: { maxConnections: 1, maxMessages: 10 },
      tls: { mode: 'opportunistic' },
    });
    opened.push(t);
    const msg = email();
    expect((await t.send([msg]))[0].kind).toBe('accepted');
    await waitFor(
      async () => exim.mails().find((m) => m.headers['x-message-id'] === msg.id),
      15_000,
      'delivery',
    );
    expect(exim.log()).toMatch(/<= news@acme\.example .* P=esmtp /);
  });
});
