import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyLimitsFor } from '../../src/config/body-limits.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { expectXmlError } from '../fuzz/expectations.js';
import { listen, rawRequest } from '../fuzz/raw-http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const SMS = '/api/v1/json/bulk/sms';
const XML = '/api/v1/xml/bulk/sms';
const LIMITS = bodyLimitsFor(10_000);

/**
 * A request written by hand on its own connection: its head at once, then its body only when
 * the test says so, so a test sees whether the answer came before the body was sent.
 */
class HandWrittenRequest {
  readonly socket: net.Socket;
  private received = '';
  /** Bytes of body written before the answer's first byte arrived (or all of them). */
  sentWhenAnswered = -1;
  private sent = 0;
  readonly answered: Promise<string>;
  readonly closed: Promise<void>;

  constructor(port: number, head: string) {
    this.socket = net.connect(port, '127.0.0.1');
    this.socket.on('error', () => undefined);
    this.answered = new Promise((resolve) => {
      this.socket.on('data', (d: Buffer) => {
        if (this.sentWhenAnswered < 0) this.sentWhenAnswered = this.sent;
        this.received += d.toString('latin1');
        if (/\r\n\r\n/.test(this.received)) resolve(this.received);
      });
    });
    this.closed = new Promise((resolve) => this.socket.on('close', () => resolve()));
    this.socket.write(head);
  }

  /** Writes `chunk` unless an answer came or the connection closed; false once it stops. */
  async send(chunk: Buffer | string): Promise<boolean> {
    if (this.received !== '' || this.socket.destroyed || this.socket.writableEnded) return false;
    this.sent += Buffer.byteLength(chunk);
    await new Promise<void>((resolve) => this.socket.write(chunk, () => resolve()));
    return true;
  }
}

const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
const bodyOf = (answer: string) =>
  JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as {
    error: { code: string };
    message: string;
  };

describe('big bodies: refused unread, parsed within limits, counted against the rate limit', () => {
  let t: TestApp;
  let port: number;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestApp();
    port = await listen(t.app.getHttpServer());
    tenant = await createTenant(t, { balances: { sms: '1000000' }, prices: { sms: '0.01' } });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  const head = (key: string, path: string, headers: Record<string, string>) =>
    `POST ${path} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\n` +
    Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('') +
    '\r\n';

  /** A whole request through an HTTP client: `key` posts `body` as `type` to `path`. */
  const post = (key: string, path: string, type: string, body: string, timeoutMs?: number) =>
    rawRequest(
      port,
      { method: 'POST', path, headers: { 'X-API-Key': key, 'Content-Type': type }, body },
      timeoutMs,
    );

  it('refuses a Content-Length over the route limit with 413 and closes, before the body is sent', async () => {
    const req = new HandWrittenRequest(
      port,
      head(tenant.key, SMS, { 'Content-Length': String(LIMITS.send + 1) }),
    );
    const answer = await req.answered;
    expect(req.sentWhenAnswered).toBe(0);
    expect(statusOf(answer)).toBe(413);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(bodyOf(answer).error.code).toBe('PAYLOAD_TOO_LARGE');
    await req.closed;
  });

  it('refuses a body over the limit of a small route the same way: 16 KB on /balance', async () => {
    const req = new HandWrittenRequest(
      port,
      head(tenant.key, '/api/v1/json/balance', { 'Content-Length': String(LIMITS.small + 1) }),
    );
    expect(statusOf(await req.answered)).toBe(413);
    expect(req.sentWhenAnswered).toBe(0);
    await req.closed;
  });

  it('cuts a chunked body at the limit: 413 and the connection closed while the client is still sending', async () => {
    const req = new HandWrittenRequest(port, head(tenant.key, SMS, { 'Transfer-Encoding': 'chunked' }));
    const piece = Buffer.alloc(64 * 1024, 0x20);
    const answered = req.answered.then(() => true);
    const chunk = Buffer.concat([
      Buffer.from(`${piece.length.toString(16)}\r\n`),
      piece,
      Buffer.from('\r\n'),
    ]);
    const most = 8 * LIMITS.send;
    let written = 0;
    // A write waits while the server reads nothing more; the answer ends that wait.
    while (written < most && (await Promise.race([req.send(chunk), answered.then(() => false)]))) {
      written += piece.length;
      // A pause now and then lets the answer overtake the rest of the body.
      if (written % (512 * 1024) === 0) await Promise.race([answered, new Promise((r) => setTimeout(r, 20))]);
    }
    const answer = await req.answered;
    expect(statusOf(answer)).toBe(413);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(bodyOf(answer).error.code).toBe('PAYLOAD_TOO_LARGE');
    // Stopped near the limit, not at the end of the 10 MB the client meant to send.
    expect(req.sentWhenAnswered).toBeLessThan(most);
    await req.closed;
  });

  it('refuses XML with too many attributes on the root, too many elements or too deep with a clear 400, and 60,000 root attributes with 413 unread', async () => {
    const postXml = (body: string) => post(tenant.key, XML, 'application/xml', body);
    const fields = '<from>ACME</from><to>260971234567</to><message>hi</message><source>API</source>';
    const attrs = (n: number) => Array.from({ length: n }, (_, i) => ` a${i}="1"`).join('');

    const sixty = await postXml(`<request${attrs(60_000)}>${fields}</request>`);
    expect(sixty.status).toBe(413);
    expect(expectXmlError(sixty)).toBe('PAYLOAD_TOO_LARGE');

    const cases: Array<[string, RegExp]> = [
      [`<request${attrs(30_000)}>${fields}</request>`, /&lt;request&gt; has more than 8 attributes/],
      [`<request>${'<to/>'.repeat(20_001)}${fields}</request>`, /more than 20000 elements/],
      [
        `<request>${fields}<x>${'<a>'.repeat(9)}${'</a>'.repeat(9)}</x></request>`,
        /nested more than 8 levels/,
      ],
    ];
    for (const [body, message] of cases) {
      const res = await postXml(body);
      expect(res.status).toBe(400);
      expect(expectXmlError(res)).toBe('MALFORMED_BODY');
      expect(res.text).toMatch(message);
    }
  });

  it("counts body bytes against the key's rate limit: a key sending big bodies is refused unread while another key is served", async () => {
    // 100 requests a minute; a 1 MB body counts as 256 of them (RATE_LIMIT_BODY_KB = 4), at most 100.
    const flooder = await createTenant(t, { key: { rateLimit: { limit: 100, windowSeconds: 60 } } });
    const other = await createTenant(t);
    const body = JSON.stringify({ from: 'ACME', message: 'x', to: Array(70_000).fill('260971234567') });
    expect(body.length).toBeGreaterThan(1024 * 1024);
    expect(body.length).toBeLessThan(LIMITS.send);
    const first = await post(flooder.key, SMS, 'application/json', body);
    expect(first.status).not.toBe(429);
    expect(first.headers['ratelimit-remaining']).toBe('0');

    const second = new HandWrittenRequest(
      port,
      head(flooder.key, SMS, { 'Content-Length': String(body.length) }),
    );
    const answer = await second.answered;
    expect(second.sentWhenAnswered).toBe(0);
    expect(statusOf(answer)).toBe(429);
    expect(bodyOf(answer).error.code).toBe('RATE_LIMITED');
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    await second.closed;

    const served = await rawRequest(port, {
      method: 'GET',
      path: '/api/v1/json/balance',
      headers: { 'X-API-Key': other.key },
    });
    expect(served.status).toBe(200);
    const small = await rawRequest(port, {
      method: 'GET',
      path: '/api/v1/json/balance',
      headers: { 'X-API-Key': flooder.key },
    });
    expect(small.status).toBe(429);
    expect((small.json as { error: { code: string } }).error.code).toBe('RATE_LIMITED');
  });

  it("sizes a test key's body limit for TEST_MAX_RECIPIENTS: 413 unread past it, where a live key's body of that size is read", async () => {
    const tester = await createTenant(t, { key: { mode: 'test' } });
    const limits = bodyLimitsFor(1000);
    const over = new HandWrittenRequest(
      port,
      head(tester.key, SMS, { 'Content-Length': String(limits.send + 1) }),
    );
    const answer = await over.answered;
    expect(over.sentWhenAnswered).toBe(0);
    expect(statusOf(answer)).toBe(413);
    expect(bodyOf(answer).message).toContain(`(${limits.send} bytes)`);
    await over.closed;
    const body = JSON.stringify({ from: 'ACME', message: 'x', to: Array(15_000).fill('260971234567') });
    expect(body.length).toBeGreaterThan(limits.send);
    const live = await post(tenant.key, SMS, 'application/json', body);
    expect((live.json as { error: { code: string } }).error.code).toBe('TOO_MANY_RECIPIENTS');
  });

  const recipients = Array.from(
    { length: 10_000 },
    (_, i) => `26097${String(1_000_000 + i).padStart(7, '0')}`,
  );

  it('still takes a legal 10,000-recipient personalised JSON send', async () => {
    const variables = Object.fromEntries(
      recipients.map((r) => [r, { first_name: 'Jane', amount: '120.50' }]),
    );
    const body = JSON.stringify({
      from: 'ACME',
      message: 'Hi {{first_name}}, {{amount}} due',
      to: recipients,
      variables,
    });
    expect(body.length).toBeLessThan(LIMITS.send);
    const res = await post(tenant.key, SMS, 'application/json', body, 60_000);
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect((res.json as { data: unknown[] }).data).toHaveLength(10_000);
  }, 90_000);

  it('still takes a legal 10,000-recipient XML send, pretty-printed', async () => {
    const body = `<?xml version="1.0" encoding="UTF-8"?>\n<request>\n  <from>ACME</from>\n${recipients
      .map((r) => `  <to>${r}</to>\n`)
      .join('')}  <message>Hello</message>\n  <source>API</source>\n</request>\n`;
    expect(body.length).toBeLessThan(LIMITS.xml);
    const res = await post(tenant.key, XML, 'application/xml', body, 60_000);
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.text.match(/<recipient>/g)).toHaveLength(10_000);
  }, 90_000);
});
