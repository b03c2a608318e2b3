import { afterEach, describe, expect, it } from 'vitest';
import { TestTransport } from './test.transport.js';
import type { OutboundMessage } from './transport.js';

const messages = (n: number, base: number): OutboundMessage[] =>
  Array.from({ length: n }, (_, i) => ({
    id: String(base + i),
    uuid: `u-${base + i}`,
    channel: 'sms',
    recipient: String(260971000000 + base + i),
    sender: 'ACME',
    body: 'test',
  }));

describe('TestTransport', () => {
  let transport: TestTransport | undefined;
  afterEach(() => transport?.close());

  it('takes test messages at TEST_DISPATCH_RATE: 300 at 1,000 a second take about 0.3 s, beyond the idle credit', async () => {
    transport = new TestTransport({ channel: 'sms', deliveryDelayMs: 60_000 }, 1000);
    const started = performance.now();
    const results = [
      ...(await transport.send(messages(100, 0))),
      ...(await transport.send(messages(100, 100))),
      ...(await transport.send(messages(100, 200))),
    ];
    // The first 100 go at once (within the 49 ms credit, less what it covers), each later 100
    // waits for the 100 intervals of the one before.
    expect(performance.now() - started).toBeGreaterThanOrEqual(200 - 50);
    expect(results).toHaveLength(300);
  });
});
