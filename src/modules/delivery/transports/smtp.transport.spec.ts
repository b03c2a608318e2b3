import { createServer, type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpPeer, type SmtpPeer } from '../../../../test/support/smtp-peer.js';
import { classifySmtpError, htmlToText, SmtpTransport } from './smtp.transport.js';

/** The peer speaks plain SMTP (no STARTTLS): TLS against a real MTA is tested in smtp-exim.spec.ts. */
const PLAIN = { mode: 'off' as const };
import type { OutboundMessage } from './transport.js';

let seq = 0;
function email(overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  seq += 1;
  return {
    id: String(seq),
    uuid: `0190a3b4-0000-7000-8000-${String(seq).padStart(12, '0')}`,
    apiReference: '1764184470578998353',
    channel: 'email',
    recipient: `user${seq}@example.com`,
    sender: 'news@sender.example',
    body: '<p>Hello</p>',
    subject: 'Greetings',
    replyTo: null,
    ...overrides,
  };
}

/** A port that was just free: nothing listens on it. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('SmtpTransport against a real SMTP peer', () => {
  let peer: SmtpPeer;
  let transport: SmtpTransport;

  beforeAll(async () => {
    peer = await startSmtpPeer({
      rejectRecipients: new Set(['nobody@example.com']),
      tempFailRecipients: new Set(['busy@example.com']),
      auth: { user: 'mailer', pass: 'p@ss:word' },
    });
    transport = new SmtpTransport({
      url: peer.url,
      pool: { maxConnections: 4, maxMessages: 20 },
      timeoutMs: 5000,
      tls: PLAIN,
    });
  });
  afterAll(async () => {
    await transport.close();
    await peer.close();
  });

  it('delivers From, To, Subject, Reply-To, the HTML unchanged, a text alternative and our Message-ID', async () => {
    const html =
      '<html><body><h1>Café &amp; crème — ünïcödé 🎉</h1>' +
      '<p style="color:red">A long line that goes well past seventy-six characters so that the transfer encoding must wrap it = soft breaks.</p>' +
      '<p>Visit <a href="https://example.com/x?a=1&amp;b=2">our site</a>.<br>Bye&nbsp;now &lt;3</p></body></html>';
    const msg = email({
      recipient: 'Reader@example.com',
      subject: 'Ünïcode subject ✓',
      replyTo: 'help@sender.example',
      body: html,
    });
    const [result] = await transport.send([msg]);

    expect(result).toEqual({
      kind: 'accepted',
      providerMessageId: `<${msg.id}.1764184470578998353@sender.example>`,
    });
    const got = peer.messages.find((m) => m.headers['x-message-id'] === msg.id);
    expect(got).toBeDefined();
    expect(got!.from).toBe('news@sender.example');
    expect(got!.to).toEqual(['Reader@example.com']);
    expect(got!.headers.to).toBe('Reader@example.com');
    expect(got!.subject).toBe('Ünïcode subject ✓');
    expect(got!.replyTo).toBe('help@sender.example');
    expect(got!.messageId).toBe(result.kind === 'accepted' ? result.providerMessageId : '');
    expect(got!.html).toBe(html);
    // SMTP carries CRLF line endings; the alternative is written with LF.
    expect(got!.text?.replace(/\r\n/g, '\n')).toBe(
      'Café & crème — ünïcödé 🎉\n\n' +
        'A long line that goes well past seventy-six characters so that the transfer encoding must wrap it = soft breaks.\n\n' +
        'Visit our site (https://example.com/x?a=1&b=2).\nBye now <3',
    );
  });

  it('keeps multi-line HTML intact and omits Reply-To when there is none', async () => {
    const html = '<div>\r\n  line one\r\n  line two\r\n</div>';
    const msg = email({ body: html });
    const [result] = await transport.send([msg]);
    expect(result.kind).toBe('accepted');
    const got = peer.messages.find((m) => m.headers['x-message-id'] === msg.id)!;
    expect(got.html).toBe(html);
    expect(got.text).toBe('line one line two');
    expect(got.replyTo).toBeUndefined();
  });

  it('bare LF line breaks arrive as LF: the base64 body keeps every byte', async () => {
    const msg = email({ body: '<p>one\ntwo</p>' });
    await transport.send([msg]);
    const got = peer.messages.find((m) => m.headers['x-message-id'] === msg.id)!;
    expect(got.html).toBe('<p>one\ntwo</p>');
  });

  it('maps 550 to permanent SMTP_550 and 451 to transient, without affecting the rest of the batch', async () => {
    const ok = email();
    const results = await transport.send([
      email({ recipient: 'nobody@example.com' }),
      ok,
      email({ recipient: 'busy@example.com' }),
    ]);
    expect(results[0]).toMatchObject({ kind: 'permanent', reason: 'SMTP_550' });
    expect(results[1]).toEqual({
      kind: 'accepted',
      providerMessageId: `<${ok.id}.1764184470578998353@sender.example>`,
    });
    expect(results[2]).toMatchObject({ kind: 'transient', reason: 'SMTP_451' });
  });

  it('delivers a batch of 50 exactly once each', async () => {
    const batch = Array.from({ length: 50 }, () => email());
    const results = await transport.send(batch);
    expect(results.every((r) => r.kind === 'accepted')).toBe(true);
    for (const m of batch) {
      expect(peer.messages.filter((g) => g.headers['x-message-id'] === m.id)).toHaveLength(1);
    }
    // Results come back in the order the messages went in.
    expect(results.map((r) => (r.kind === 'accepted' ? r.providerMessageId : ''))).toEqual(
      batch.map((m) => `<${m.id}.1764184470578998353@sender.example>`),
    );
  });

  it('reports up within 1 s, naming host:port', async () => {
    const started = Date.now();
    const health = await transport.health();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(health.status).toBe('up');
    expect(health.message).toContain(`127.0.0.1:${peer.port}`);
    expect(health.message).not.toContain('p@ss');
    expect(health.response_time_ms).toBeGreaterThanOrEqual(0);
  });
});

describe('SmtpTransport failures', () => {
  const opened: SmtpTransport[] = [];
  const make = (url: string, from?: string) => {
    const t = new SmtpTransport({
      url,
      from,
      pool: { maxConnections: 2, maxMessages: 10 },
      timeoutMs: 2000,
      tls: PLAIN,
    });
    opened.push(t);
    return t;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((t) => t.close()));
  });

  it('answers transient when nothing listens, and health is down within 1 s', async () => {
    const port = await closedPort();
    const t = make(`smtp://127.0.0.1:${port}`);
    const results = await t.send([email(), email()]);
    expect(results.map((r) => r.kind)).toEqual(['transient', 'transient']);

    const started = Date.now();
    const health = await t.health();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(health.status).toBe('down');
    expect(health.message).toContain(`127.0.0.1:${port}`);
  });

  it('answers transient when the server goes away between sends', async () => {
    const peer = await startSmtpPeer();
    const t = make(peer.url);
    expect((await t.send([email()]))[0].kind).toBe('accepted');
    await peer.close();
    expect((await t.send([email()]))[0].kind).toBe('transient');
  });

  it('refuses credentials the server does not accept as a configuration failure, never as a rejection of the message', async () => {
    const peer = await startSmtpPeer({ auth: { user: 'mailer', pass: 'right' } });
    try {
      const t = make(peer.url.replace('127.0.0.1', 'mailer:wrong@127.0.0.1'));
      const [result] = await t.send([email()]);
      expect(result).toMatchObject({ kind: 'transient', reason: 'SMTP_AUTH_REFUSED', configuration: true });
      const health = await t.health();
      expect(health.status).toBe('down');
      expect(health.message).toContain('SMTP_AUTH_REFUSED');
    } finally {
      await peer.close();
    }
  });

  it('uses the configured address when the sender is only a name', async () => {
    const peer = await startSmtpPeer();
    try {
      const t = make(peer.url, 'noreply@bulk.example');
      const msg = email({ sender: 'ACME Ltd' });
      expect((await t.send([msg]))[0].kind).toBe('accepted');
      expect(peer.messages[0].from).toBe('ACME Ltd <noreply@bulk.example>');
      expect(peer.messages[0].envelopeFrom).toBe('noreply@bulk.example');
    } finally {
      await peer.close();
    }
  });

  it('never reports deliveries and refuses to send after close', async () => {
    const peer = await startSmtpPeer();
    try {
      const t = make(peer.url);
      let reports = 0;
      t.onReport(async () => {
        reports += 1;
      });
      await t.send([email()]);
      await t.close();
      expect(await t.send([email()])).toEqual([{ kind: 'transient', reason: 'TRANSPORT_CLOSED' }]);
      expect(reports).toBe(0);
    } finally {
      await peer.close();
    }
  });
});

describe('classifySmtpError', () => {
  it('treats 5xx as permanent except 503, and everything else as transient', () => {
    expect(classifySmtpError(Object.assign(new Error('x'), { responseCode: 552 }))).toMatchObject({
      kind: 'permanent',
      reason: 'SMTP_552',
    });
    expect(classifySmtpError(Object.assign(new Error('x'), { responseCode: 503 }))).toMatchObject({
      kind: 'transient',
      reason: 'SMTP_503',
    });
    expect(classifySmtpError(Object.assign(new Error('x'), { responseCode: 421 }))).toMatchObject({
      kind: 'transient',
      reason: 'SMTP_421',
    });
    expect(classifySmtpError(Object.assign(new Error('x'), { code: 'ETIMEDOUT' }))).toMatchObject({
      kind: 'transient',
      reason: 'SMTP_TIMEOUT',
    });
    expect(
      classifySmtpError(Object.assign(new Error('x'), { code: 'ESOCKET', originalCode: 'ECONNREFUSED' })),
    ).toMatchObject({
      kind: 'transient',
      reason: 'SMTP_ECONNREFUSED',
    });
  });

  it('flags what no retry heals as a configuration failure: TLS, credentials, unknown host', () => {
    const cls = (props: object) => classifySmtpError(Object.assign(new Error('m'), props));
    expect(cls({ code: 'ESOCKET', originalCode: 'DEPTH_ZERO_SELF_SIGNED_CERT' })).toMatchObject({
      reason: 'SMTP_TLS_CERTIFICATE',
      configuration: true,
    });
    expect(cls({ code: 'ETLS' })).toMatchObject({ reason: 'SMTP_TLS_UNAVAILABLE', configuration: true });
    expect(cls({ code: 'EAUTH', responseCode: 535 })).toMatchObject({
      kind: 'transient',
      reason: 'SMTP_AUTH_REFUSED',
      configuration: true,
    });
    expect(cls({ code: 'EDNS', originalCode: 'ENOTFOUND' })).toMatchObject({
      reason: 'SMTP_HOST_UNKNOWN',
      configuration: true,
    });
    // A resolver that does not answer now, or a temporary auth failure, may heal.
    expect(cls({ code: 'EDNS', originalCode: 'EAI_AGAIN' })).not.toHaveProperty('configuration');
    expect(cls({ code: 'EAUTH', responseCode: 454 })).toMatchObject({
      kind: 'transient',
      reason: 'SMTP_454',
    });
    expect(cls({ code: 'EAUTH', responseCode: 454 })).not.toHaveProperty('configuration');
  });
});

describe('htmlToText', () => {
  it('drops scripts, styles and comments, keeps list items and decodes entities once', () => {
    const html =
      '<head><title>T</title><style>p{color:red}</style></head><!-- hidden --><script>alert(1)</script>' +
      '<ul><li>One &amp;amp; two</li><li>&#x263A; &#9731; &unknown;</li></ul><table><tr><td>a</td><td>b</td></tr></table>';
    expect(htmlToText(html)).toBe('- One &amp; two\n- ☺ ☃ &unknown;\n\na b');
  });

  it('passes plain text through with whitespace collapsed', () => {
    expect(htmlToText('  just\n  some   text  ')).toBe('just some text');
  });
});
