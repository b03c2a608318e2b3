import { describe, expect, it } from 'vitest';
import type { Channel } from '../../messages/channel.js';
import { SandboxTransport, sandboxFails } from './sandbox.transport.js';
import type { DeliveryReport, OutboundMessage } from './transport.js';

let seq = 0;
function msg(channel: Channel, recipient: string): OutboundMessage {
  seq += 1;
  return {
    id: String(seq),
    uuid: `0190a3b4-0000-7000-8000-${String(seq).padStart(12, '0')}`,
    channel,
    recipient,
    sender: 'ACME',
    body: 'hi',
  };
}

function collect(t: SandboxTransport): DeliveryReport[] {
  const reports: DeliveryReport[] = [];
  t.onReport(async (r) => {
    reports.push(r);
  });
  return reports;
}

async function waitFor(check: () => boolean, timeoutMs = 2000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('SandboxTransport', () => {
  it('accepts every message with a sandbox- id and reports DELIVERED only after the delay', async () => {
    const t = new SandboxTransport({ channel: 'sms', deliveryDelayMs: 150 });
    const reports = collect(t);
    const m = msg('sms', '260971234567');
    const started = Date.now();
    expect(await t.send([m])).toEqual([{ kind: 'accepted', providerMessageId: `sandbox-${m.uuid}` }]);
    expect(reports).toHaveLength(0);

    await waitFor(() => reports.length === 1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(reports[0]).toMatchObject({
      providerMessageId: `sandbox-${m.uuid}`,
      status: 'DELIVERED',
      reason: null,
    });
    expect(reports[0].occurredAt).toBeInstanceOf(Date);
    await t.close();
  });

  it('reports UNDELIVERED for numbers ending 0000 and for fail@ addresses', async () => {
    const t = new SandboxTransport({ channel: 'email', deliveryDelayMs: 10 });
    const reports = collect(t);
    const batch = [
      msg('sms', '260970000000'),
      msg('chat', '260971230000'),
      msg('email', 'FAIL@example.com'),
      msg('email', 'fail.not@example.com'),
      msg('sms', '260970000001'),
    ];
    const results = await t.send(batch);
    expect(results.every((r) => r.kind === 'accepted')).toBe(true);
    await waitFor(() => reports.length === batch.length);

    const byId = new Map(reports.map((r) => [r.providerMessageId, r]));
    const outcome = batch.map((m) => [
      byId.get(`sandbox-${m.uuid}`)?.status,
      byId.get(`sandbox-${m.uuid}`)?.reason,
    ]);
    expect(outcome).toEqual([
      ['UNDELIVERED', 'SANDBOX_UNDELIVERED'],
      ['UNDELIVERED', 'SANDBOX_UNDELIVERED'],
      ['UNDELIVERED', 'SANDBOX_UNDELIVERED'],
      ['DELIVERED', null],
      ['DELIVERED', null],
    ]);
    await t.close();
  });

  it('fires pending reports on close, once each, and refuses sends afterwards', async () => {
    const t = new SandboxTransport({ channel: 'sms', deliveryDelayMs: 60_000 });
    const reports = collect(t);
    const batch = [msg('sms', '260971111111'), msg('sms', '260972220000')];
    await t.send(batch);
    expect(reports).toHaveLength(0);

    await t.close();
    expect(reports.map((r) => [r.providerMessageId, r.status])).toEqual([
      [`sandbox-${batch[0].uuid}`, 'DELIVERED'],
      [`sandbox-${batch[1].uuid}`, 'UNDELIVERED'],
    ]);
    await t.close();
    expect(reports).toHaveLength(2);
    expect(await t.send([msg('sms', '260971111111')])).toEqual([
      { kind: 'transient', reason: 'TRANSPORT_CLOSED' },
    ]);
  });

  it('survives a failing report handler', async () => {
    const t = new SandboxTransport({ channel: 'chat', deliveryDelayMs: 0 });
    let calls = 0;
    t.onReport(async () => {
      calls += 1;
      throw new Error('database down');
    });
    await t.send([msg('chat', '260971234567')]);
    await waitFor(() => calls === 1);
    await t.close();
  });

  it('is always healthy and says nothing leaves', async () => {
    const t = new SandboxTransport({ channel: 'sms', deliveryDelayMs: 0 });
    expect(await t.health()).toEqual({
      status: 'up',
      message: 'sandbox transport: no messages leave this system',
      response_time_ms: 0,
    });
    expect(t.name).toBe('sandbox');
  });

  it('sandboxFails looks at the channel the message travels on', () => {
    expect(sandboxFails('email', 'fail@x.org')).toBe(true);
    expect(sandboxFails('email', 'Fail@x.org')).toBe(true);
    expect(sandboxFails('email', 'failure@x.org')).toBe(false);
    expect(sandboxFails('email', 'x0000@x.org')).toBe(false);
    expect(sandboxFails('sms', '2609700000')).toBe(true);
    expect(sandboxFails('chat', '2609700001')).toBe(false);
  });
});
