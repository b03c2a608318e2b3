import { lookup } from 'node:dns/promises';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startHttpPeer, type HttpPeer } from '../../../../test/support/http-peer.js';
import { HttpChatTransport } from './http-chat.transport.js';
import type { OutboundMessage } from './transport.js';

let seq = 0;
function chat(overrides: Partial<OutboundMessage> = {}): OutboundMessage {
  seq += 1;
  return {
    id: String(seq),
    uuid: `0190a3b4-0000-7000-8000-${String(seq).padStart(12, '0')}`,
    channel: 'chat',
    recipient: `26097123${String(seq).padStart(4, '0')}`,
    sender: '4455',
    body: `hello ${seq} — ünïcode ✓`,
    ...overrides,
  };
}

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('HttpChatTransport against a real HTTP peer', () => {
  let peer: HttpPeer;
  let transport: HttpChatTransport;

  beforeAll(async () => {
    peer = await startHttpPeer();
    transport = new HttpChatTransport({
      url: `${peer.url}/v1/messages?src=bulk`,
      token: 's3cret',
      timeoutMs: 2000,
      concurrency: 4,
    });
  });
  afterEach(() => peer.setHandler());
  afterAll(async () => {
    await transport.close();
    await peer.close();
  });

  it('POSTs the message as JSON with bearer token and Idempotency-Key, and takes the peer id', async () => {
    const before = peer.requests.length;
    const msg = chat();
    const [result] = await transport.send([msg]);

    expect(result).toEqual({ kind: 'accepted', providerMessageId: `peer-${before + 1}` });
    const req = peer.requests[before];
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/v1/messages?src=bulk');
    expect(req.headers.authorization).toBe('Bearer s3cret');
    expect(req.headers['idempotency-key']).toBe(msg.uuid);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.json).toEqual({ message_id: msg.uuid, to: msg.recipient, from: msg.sender, text: msg.body });
  });

  it('takes message_id when there is no id, and falls back to our uuid when the answer has neither', async () => {
    peer.setHandler(() => ({ status: 201, body: { message_id: 'mid-7' } }));
    expect(await transport.send([chat()])).toEqual([{ kind: 'accepted', providerMessageId: 'mid-7' }]);

    peer.setHandler(() => ({ status: 202, body: 'queued' }));
    const m = chat();
    expect(await transport.send([m])).toEqual([{ kind: 'accepted', providerMessageId: m.uuid }]);

    peer.setHandler(() => ({ status: 204 }));
    const n = chat();
    expect(await transport.send([n])).toEqual([{ kind: 'accepted', providerMessageId: n.uuid }]);
  });

  it('maps 400 and 404 to permanent, 408, 429 and 503 to transient', async () => {
    const byRecipient: Record<string, number> = {};
    const batch = [400, 404, 408, 429, 503].map((status) => {
      const m = chat();
      byRecipient[m.recipient] = status;
      return m;
    });
    peer.setHandler((req) => ({
      status: byRecipient[(req.json as { to: string }).to],
      body: { error: 'x' },
    }));
    expect(await transport.send(batch)).toEqual([
      { kind: 'permanent', reason: 'HTTP_400' },
      { kind: 'permanent', reason: 'HTTP_404' },
      { kind: 'transient', reason: 'HTTP_408' },
      { kind: 'transient', reason: 'HTTP_429' },
      { kind: 'transient', reason: 'HTTP_503' },
    ]);
  });

  it('maps 401 (our token refused) and a redirect to a configuration failure, never to a rejection of the message', async () => {
    peer.setHandler(() => ({ status: 401, body: { error: 'bad token' } }));
    const [refused] = await transport.send([chat()]);
    expect(refused).toMatchObject({ kind: 'transient', reason: 'HTTP_401', configuration: true });
    expect(refused.kind === 'transient' && refused.detail).toContain('bad token');
    peer.setHandler(() => ({ status: 302, headers: { location: 'http://elsewhere.example/' } }));
    expect((await transport.send([chat()]))[0]).toMatchObject({
      kind: 'transient',
      reason: 'HTTP_302',
      configuration: true,
    });
  });

  it('answers transient when the peer is slower than timeoutMs', async () => {
    const quick = new HttpChatTransport({ url: peer.url, timeoutMs: 150 });
    peer.setHandler(() => ({ status: 200, body: { id: 'late' }, delayMs: 1000 }));
    const started = Date.now();
    expect(await quick.send([chat()])).toEqual([{ kind: 'transient', reason: 'HTTP_TIMEOUT' }]);
    expect(Date.now() - started).toBeLessThan(900);
  });

  it('keeps at most `concurrency` requests in flight and returns results in order', async () => {
    let inFlight = 0;
    let peak = 0;
    peer.setHandler(async (req) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 30));
      inFlight -= 1;
      return { status: 200, body: { id: `p-${(req.json as { message_id: string }).message_id}` } };
    });
    const batch = Array.from({ length: 20 }, () => chat());
    const results = await transport.send(batch);
    expect(results).toEqual(batch.map((m) => ({ kind: 'accepted', providerMessageId: `p-${m.uuid}` })));
    expect(peak).toBe(4);
  });

  it('sends no Authorization header without a token', async () => {
    const bare = new HttpChatTransport({ url: peer.url });
    const before = peer.requests.length;
    await bare.send([chat()]);
    expect(peer.requests[before].headers.authorization).toBeUndefined();
  });

  it('reports up within 1 s with a HEAD to the origin, whatever the status', async () => {
    peer.setHandler(() => ({ status: 404 }));
    const before = peer.requests.length;
    const started = Date.now();
    const health = await transport.health();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(health).toMatchObject({ status: 'up' });
    expect(health.message).toContain(peer.url);
    expect(peer.requests[before]).toMatchObject({ method: 'HEAD', path: '/' });
  });

  it('reports down within 1 s when the origin does not answer in time', async () => {
    peer.setHandler(() => ({ status: 200, delayMs: 3000 }));
    const started = Date.now();
    const health = await transport.health();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(health.status).toBe('down');
  });
});

describe('HttpChatTransport without a peer', () => {
  it('flags a host name that does not resolve as a configuration failure', async (ctx) => {
    // Without a resolver at all the lookup fails with EAI_AGAIN (may heal), not ENOTFOUND.
    const code = await lookup('no-such-host.invalid').then(
      () => 'resolved',
      (err: { code?: string }) => err.code,
    );
    if (code !== 'ENOTFOUND') ctx.skip(`this machine's resolver answers ${code} for .invalid, not ENOTFOUND`);
    const t = new HttpChatTransport({ url: 'http://no-such-host.invalid/send', timeoutMs: 5000 });
    const [result] = await t.send([chat()]);
    expect(result).toMatchObject({
      kind: 'transient',
      reason: 'HTTP_NETWORK_ENOTFOUND',
      configuration: true,
    });
  });

  it('answers transient on connection refused, health is down within 1 s, and send after close is transient', async () => {
    const port = await closedPort();
    const t = new HttpChatTransport({ url: `http://127.0.0.1:${port}/send` });
    const [result] = await t.send([chat()]);
    expect(result).toEqual({ kind: 'transient', reason: 'HTTP_NETWORK_ECONNREFUSED' });

    const started = Date.now();
    const health = await t.health();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(health.status).toBe('down');
    expect(health.message).toContain(`127.0.0.1:${port}`);

    await t.close();
    expect(await t.send([chat()])).toEqual([{ kind: 'transient', reason: 'TRANSPORT_CLOSED' }]);
  });
});
