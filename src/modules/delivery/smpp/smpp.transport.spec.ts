import { randomUUID } from 'node:crypto';
import smpp from 'smpp';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startSmppPeer, type SmppPeer, type SmppPeerOptions } from '../../../../test/support/smpp-peer.js';
import { buildSubmitSm, SmppTransport, type SmppTransportOptions } from './smpp.transport.js';
import type { DeliveryReport, OutboundMessage, TransportResult } from '../transports/transport.js';

let counter = 0;
function sms(body: string, recipient = '260971000001', sender = 'ACME'): OutboundMessage {
  counter++;
  return { id: String(counter), uuid: randomUUID(), channel: 'sms', recipient, sender, body };
}

const peers: SmppPeer[] = [];
const transports: SmppTransport[] = [];

async function setup(
  peerOptions: SmppPeerOptions = {},
  transportOptions: Partial<SmppTransportOptions> = {},
): Promise<{ peer: SmppPeer; transport: SmppTransport; warnings: string[] }> {
  const peer = await startSmppPeer(peerOptions);
  peers.push(peer);
  const warnings: string[] = [];
  const transport = new SmppTransport({
    url: peer.url,
    tps: 0,
    window: 50,
    logger: { warn: (m) => warnings.push(m), log: () => undefined },
    ...transportOptions,
  });
  transports.push(transport);
  return { peer, transport, warnings };
}

afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
  await Promise.all(peers.splice(0).map((p) => p.close()));
});

function accepted(result: TransportResult): string {
  expect(result.kind).toBe('accepted');
  return (result as { providerMessageId: string }).providerMessageId;
}

describe('SmppTransport sending', () => {
  it('submits a single message and returns the SMSC message id', async () => {
    const { peer, transport } = await setup();
    const results = await transport.send([
      sms('Hello there', '260971000001', 'ACME'),
      sms('Hi', '+260971000002', '+260955000000'),
    ]);

    expect(results).toHaveLength(2);
    expect(peer.received).toHaveLength(2);
    const byDest = new Map(peer.received.map((r) => [r.destination, r]));
    const first = byDest.get('260971000001')!;
    expect(accepted(results[0])).toBe(first.messageId);
    expect(first).toMatchObject({
      source: 'ACME',
      sourceTon: 5,
      sourceNpi: 0,
      destTon: 1,
      destNpi: 1,
      dataCoding: 0,
      esmClass: 0,
      registeredDelivery: 1,
      text: 'Hello there',
    });
    expect(first.udh).toBeUndefined();
    const second = byDest.get('260971000002')!;
    expect(accepted(results[1])).toBe(second.messageId);
    expect(second).toMatchObject({ source: '260955000000', sourceTon: 1, sourceNpi: 1, text: 'Hi' });
  });

  it('splits a long GSM message into parts with one concatenation reference', async () => {
    const { peer, transport } = await setup();
    const body = 'The quick brown fox jumps over the lazy dog. '.repeat(5).trim(); // 224 septets → 2 parts
    const [result] = await transport.send([sms(body)]);

    expect(peer.received).toHaveLength(2);
    const parts = [...peer.received].sort((a, b) => a.udh!.seq - b.udh!.seq);
    expect(parts.map((p) => p.udh)).toEqual([
      { ref: parts[0].udh!.ref, total: 2, seq: 1 },
      { ref: parts[0].udh!.ref, total: 2, seq: 2 },
    ]);
    expect(parts.every((p) => p.dataCoding === 0 && (p.esmClass & 0x40) === 0x40)).toBe(true);
    expect(parts[0].text).toHaveLength(153);
    expect(parts.map((p) => p.text).join('')).toBe(body);
    expect(peer.messages()).toEqual([expect.objectContaining({ text: body })]);
    // Every part's id is returned, in part order, so each part's receipt can be matched.
    expect(result).toMatchObject({
      kind: 'accepted',
      parts: parts.map((p) => p.messageId),
      providerMessageId: parts[1].messageId,
    });
    // The id of the last segment is the one reported.
    expect(accepted(result)).toBe(parts[1].messageId);

    // The next long message uses the next reference.
    await transport.send([sms(body)]);
    const next = peer.received.slice(2)[0];
    expect(next.udh!.ref).toBe((parts[0].udh!.ref + 1) & 0xff);
  });

  it('sends UCS-2 text (Arabic, emoji) as data_coding 8, intact even when split', async () => {
    const { peer, transport } = await setup();
    const short = 'مرحبا بالعالم 👋😀';
    const long = 'سلام 🌍 '.repeat(12); // 96 UTF-16 units → 2 parts, no surrogate pair cut
    const results = await transport.send([sms(short, '260971000001'), sms(long, '260971000002')]);

    results.forEach(accepted);
    const assembled = peer.messages();
    expect(assembled.find((m) => m.destination === '260971000001')).toMatchObject({
      dataCoding: 8,
      text: short,
    });
    expect(assembled.find((m) => m.destination === '260971000002')).toMatchObject({
      dataCoding: 8,
      text: long,
    });
    expect(peer.received.filter((r) => r.destination === '260971000002')).toHaveLength(2);
  });

  it('keeps the GSM extension characters intact', async () => {
    const { peer, transport } = await setup();
    const body = 'Price 5€ [a] ^b {c} ~d |e \\f @£$¥ ÄÖÑÜ§ Δ_ΦΓ';
    const [result] = await transport.send([sms(body)]);
    accepted(result);
    expect(peer.received[0]).toMatchObject({ dataCoding: 0, text: body });
  });

  it('writes GSM 03.38 octets for data_coding 0 (unpacked, ESC pairs for the extension table)', () => {
    const [params] = buildSubmitSm(sms('@£€[a'), 0);
    const bytes = new smpp.PDU('submit_sm', params).toBuffer();
    // short_message is last in submit_sm: sm_length, then the septets.
    expect([...bytes.subarray(bytes.length - 8)]).toEqual([7, 0x00, 0x01, 0x1b, 0x65, 0x1b, 0x3c, 0x61]);

    const [ucs2] = buildSubmitSm(sms('é😀'), 0);
    expect(ucs2.data_coding).toBe(8);
    const raw = new smpp.PDU('submit_sm', ucs2).toBuffer();
    expect(raw.subarray(raw.length - 7).toString('hex')).toBe('0600e9d83dde00');
  });

  it('reports a refused destination as permanent with the SMPP status', async () => {
    const { transport } = await setup({ rejectDestinations: new Set(['260970000000']) });
    const results = await transport.send([sms('a', '260970000000'), sms('b', '260971000001')]);
    expect(results[0]).toEqual({ kind: 'permanent', reason: 'SMPP_0000000B' });
    accepted(results[1]);
  });

  it('retries throttled submits and ends accepted', async () => {
    const { peer, transport } = await setup({ throttleEvery: 3 }, { throttleBackoffMs: 20 });
    const messages = Array.from({ length: 12 }, (_, i) =>
      sms(`throttle ${i}`, `2609720000${String(i).padStart(2, '0')}`),
    );
    const results = await transport.send(messages);

    results.forEach(accepted);
    expect(peer.stats.throttled).toBeGreaterThan(0);
    expect(peer.received).toHaveLength(12);
    for (const m of messages) expect(peer.countByDestination(m.recipient)).toBe(1);
  });

  it('gives up on a PDU that stays throttled, as transient', async () => {
    const { transport } = await setup({ throttleEvery: 1 }, { throttleBackoffMs: 5, throttleRetries: 2 });
    const [result] = await transport.send([sms('never')]);
    expect(result).toMatchObject({ kind: 'transient', reason: expect.stringContaining('SMPP_00000058') });
  });

  it('keeps a window of submits in flight: 500 messages, each accepted exactly once', async () => {
    const { peer, transport } = await setup({ respondDelayMs: 2 }, { window: 50 });
    const messages = Array.from({ length: 500 }, (_, i) =>
      sms(`bulk ${i}`, `26097${String(i).padStart(7, '0')}`),
    );
    const results = await transport.send(messages);

    const ids = results.map(accepted);
    expect(new Set(ids).size).toBe(500);
    expect(peer.received).toHaveLength(500);
    for (const m of messages) expect(peer.countByDestination(m.recipient)).toBe(1);
    // Results come back in input order.
    const idByDest = new Map(peer.received.map((r) => [r.destination, r.messageId]));
    messages.forEach((m, i) => expect(ids[i]).toBe(idByDest.get(m.recipient)));
    expect(peer.stats.maxOutstanding).toBeGreaterThan(1);
    expect(peer.stats.maxOutstanding).toBeLessThanOrEqual(50);
  });

  it('paces submits to the tps cap', async () => {
    const { transport } = await setup({}, { tps: 100 });
    const messages = Array.from({ length: 50 }, (_, i) => sms(`paced ${i}`));
    await transport.connect();
    const started = performance.now();
    const results = await transport.send(messages);
    const elapsed = performance.now() - started;

    results.forEach(accepted);
    // 50 at 100/s is ~0.45 s with the small idle credit; only the lower bound is a rule.
    expect(elapsed).toBeGreaterThanOrEqual(400);
  });
});

describe('SmppTransport connection', () => {
  it('reports in-flight messages as transient when the connection drops, then reconnects', async () => {
    const { peer, transport } = await setup({ dropAfter: 100, respondDelayMs: 1 }, { window: 50 });
    const messages = Array.from({ length: 300 }, (_, i) =>
      sms(`drop ${i}`, `26096${String(i).padStart(7, '0')}`),
    );
    const results = await transport.send(messages);

    expect(results).toHaveLength(300);
    const ok = results.filter((r) => r.kind === 'accepted');
    const transient = results.filter((r) => r.kind === 'transient');
    expect(ok.length + transient.length).toBe(300);
    expect(ok.length).toBe(100);
    for (const r of transient)
      expect((r as { reason: string }).reason).toMatch(/connection|not bound|writable/);
    // Every accepted result is a message the SMSC holds, once.
    const held = new Set(peer.received.map((r) => r.messageId));
    for (const r of ok) expect(held.has((r as { providerMessageId: string }).providerMessageId)).toBe(true);
    expect(peer.received).toHaveLength(100);

    const [after] = await transport.send([sms('after the drop', '260961999999')]);
    accepted(after);
    expect(peer.stats.binds).toBe(2);
  });

  it('waits for a submit_sm_resp that comes after the response timeout: accepted, submitted once, the wait logged', async () => {
    const { peer, transport, warnings } = await setup(
      { respondDelayMs: 300 },
      { responseTimeoutMs: 100, lateResponseWaitMs: 5000 },
    );
    const results = await transport.send([sms('slow 1'), sms('slow 2')]);
    expect(results.map((r) => r.kind)).toEqual(['accepted', 'accepted']);
    expect(peer.stats.submits).toBe(2);
    await vi.waitFor(
      () =>
        expect(warnings.join('\n')).toMatch(
          /2 submit_sm unanswered after 100 ms; waiting up to 5000 ms more, not resending/,
        ),
      {
        timeout: 4000,
      },
    );
  });

  it('records a submit never answered on a live link as handed over without an id, not to be resent', async () => {
    const { peer, transport } = await setup(
      { respondDelayMs: 2000 },
      { responseTimeoutMs: 100, lateResponseWaitMs: 200 },
    );
    const [result] = await transport.send([sms('lost answer')]);
    expect(result).toEqual({
      kind: 'accepted',
      providerMessageId: '',
      parts: [''],
      reason: 'SMPP_NO_RESPONSE',
    });
    expect(peer.stats.submits).toBe(1);
  });

  it('with no late wait, reports a submit without a timely response as transient, saying why', async () => {
    const { transport } = await setup(
      { respondDelayMs: 300 },
      { responseTimeoutMs: 100, lateResponseWaitMs: 0 },
    );
    const [result] = await transport.send([sms('slow')]);
    expect(result).toEqual({ kind: 'transient', reason: 'SMPP no submit_sm_resp within 100 ms' });
  });

  it('sends enquire_link on its interval', async () => {
    const { peer, transport } = await setup({}, { enquireLinkIntervalMs: 40 });
    await transport.connect();
    await vi.waitFor(() => expect(peer.stats.enquireLinks).toBeGreaterThanOrEqual(2), { timeout: 1000 });
    expect(transport.bound).toBe(true);
  });

  it('answers an unbind from the SMSC and binds again', async () => {
    const { peer, transport } = await setup();
    accepted((await transport.send([sms('one')]))[0]);
    expect(await peer.enquireLink()).toBe(0);
    expect(await peer.unbindAll()).toEqual([0]);
    await vi.waitFor(() => expect(peer.stats.binds).toBe(2), { timeout: 3000 });
    accepted((await transport.send([sms('two')]))[0]);
  });

  it('with a wrong password: transient results and health down, without throwing', async () => {
    const peer = await startSmppPeer({ password: 'secret' });
    peers.push(peer);
    const transport = new SmppTransport({ url: peer.url.replace(':secret@', ':wrong@'), tps: 0 });
    transports.push(transport);

    const results = await transport.send([sms('a'), sms('b')]);
    expect(results).toHaveLength(2);
    for (const r of results) {
      expect(r).toMatchObject({ kind: 'transient', reason: expect.stringContaining('ESME_RBINDFAIL') });
    }
    const health = await transport.health();
    expect(health.status).toBe('down');
    expect(health.message).toMatch(/not bound.*ESME_RBINDFAIL/);
    expect(peer.stats.bindFailures).toBeGreaterThanOrEqual(1);
    await expect(transport.connect()).rejects.toThrow(/ESME_RBINDFAIL/);
  });

  it('with nothing listening: transient results and health down', async () => {
    const peer = await startSmppPeer();
    const url = peer.url;
    await peer.close();
    const transport = new SmppTransport({ url, tps: 0, connectTimeoutMs: 1000 });
    transports.push(transport);
    const [result] = await transport.send([sms('a')]);
    expect(result).toMatchObject({ kind: 'transient', reason: expect.stringMatching(/ECONNREFUSED|closed/) });
    expect((await transport.health()).status).toBe('down');
  });

  it('health: up with an enquire_link round trip when bound, answering quickly', async () => {
    const { peer, transport } = await setup();
    const started = performance.now();
    const health = await transport.health();
    expect(performance.now() - started).toBeLessThan(800);
    expect(health).toEqual({
      status: 'up',
      message: `SMPP bound to 127.0.0.1:${peer.port} as test`,
      response_time_ms: expect.any(Number),
    });
    expect(peer.stats.enquireLinks).toBeGreaterThanOrEqual(1);
  });

  it('close: unbinds, stops, and does not reconnect', async () => {
    const { peer, transport } = await setup();
    await transport.connect();
    await transport.close();
    expect(peer.stats.unbindsReceived).toBe(1);
    await new Promise((r) => setTimeout(r, 400));
    expect(peer.stats.binds).toBe(1);
    expect(peer.boundSessions()).toBe(0);
    expect(await transport.send([sms('late')])).toEqual([
      { kind: 'transient', reason: 'SMPP transport closed' },
    ]);
    expect((await transport.health()).status).toBe('down');
  });
});

describe('SmppTransport delivery receipts', () => {
  it('maps DELIVRD and UNDELIV receipts to reports with the submit id', async () => {
    const { peer, transport } = await setup({ autoReceipt: 'DELIVRD', receiptDelayMs: 5 });
    const reports: DeliveryReport[] = [];
    transport.onReport(async (r) => {
      reports.push(r);
    });

    const delivered = accepted((await transport.send([sms('deliver me')]))[0]);
    await vi.waitFor(() => expect(reports).toHaveLength(1));
    expect(reports[0]).toMatchObject({ providerMessageId: delivered, status: 'DELIVERED', reason: null });
    expect(reports[0].occurredAt).toBeInstanceOf(Date);

    peer.options.autoReceipt = 'UNDELIV';
    const failed = accepted((await transport.send([sms('fail me')]))[0]);
    await vi.waitFor(() => expect(reports).toHaveLength(2));
    expect(reports[1]).toMatchObject({
      providerMessageId: failed,
      status: 'UNDELIVERED',
      reason: 'UNDELIVERABLE err:001',
    });
  });

  it('names the connector of the bind on each receipt it delivers, and none for a bind without one', async () => {
    const named = await setup({}, { connector: 'mtn' });
    const plain = await setup();
    const reports: DeliveryReport[] = [];
    named.transport.onReport(async (r) => void reports.push(r));
    plain.transport.onReport(async (r) => void reports.push(r));
    const a = accepted((await named.transport.send([sms('a')]))[0]);
    const b = accepted((await plain.transport.send([sms('b')]))[0]);
    expect(await named.peer.sendReceipt(a, 'DELIVRD')).toBe(0);
    expect(await plain.peer.sendReceipt(b, 'DELIVRD')).toBe(0);
    expect(reports[0]).toMatchObject({ providerMessageId: a, connector: 'mtn' });
    expect(reports[1].providerMessageId).toBe(b);
    expect(reports[1].connector ?? null).toBeNull();
  });

  it('parses text-only receipts (no TLVs), ids with GSM-sensitive characters included', async () => {
    const { peer, transport } = await setup();
    const reports: DeliveryReport[] = [];
    transport.onReport(async (r) => {
      reports.push(r);
    });
    const id = accepted((await transport.send([sms('x')]))[0]);
    expect(await peer.sendReceipt(id, 'EXPIRED', { tlvs: false })).toBe(0);
    expect(reports).toEqual([expect.objectContaining({ providerMessageId: id, status: 'EXPIRED' })]);

    // '_' and '@' are different octets in GSM 03.38; a receipt written in ASCII must still match.
    await transport.send([sms('y')]);
    const status = await peer.sendReceipt('ab_c@1', 'DELIVRD', { tlvs: false });
    expect(status).toBe(0);
    expect(reports[1]).toMatchObject({ providerMessageId: 'ab_c@1', status: 'DELIVERED' });
  });

  it('answers ESME_RX_T_APPN while the handler cannot store a receipt and ESME_ROK once it can; ignores ACCEPTD and MO messages', async () => {
    const { peer, transport, warnings } = await setup();
    const seen: DeliveryReport[] = [];
    let storageUp = false;
    transport.onReport(async (r) => {
      seen.push(r);
      if (!storageUp) throw new Error('database down');
    });
    const id = accepted((await transport.send([sms('z')]))[0]);

    expect(await peer.sendReceipt(id, 'DELIVRD')).toBe(0x64);
    expect(seen).toHaveLength(1);
    expect(warnings.join('\n')).toMatch(/database down/);
    storageUp = true;
    expect(await peer.sendReceipt(id, 'DELIVRD')).toBe(0);
    expect(seen).toHaveLength(2);

    expect(await peer.sendReceipt(id, 'ACCEPTD')).toBe(0);
    expect(await peer.sendMo('260971000001', 'ACME', 'STOP')).toBe(0);
    expect(seen).toHaveLength(2);
  });
});
