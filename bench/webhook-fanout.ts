import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BenchRow } from './lib.js';

/** Endpoints subscribed to every event during the run with webhooks. */
const ENDPOINTS = 3;

export interface ReceiptRun {
  /** Receipts applied per second over the span of their completed_at (B3's receipt row). */
  rate: number;
  all: boolean;
  /** CPU per message of the worker, MySQL and Redis from the first hand-over to the last receipt. */
  cpu: BenchRow[];
  /** Events' copies for an endpoint logged from the first hand-over to the last receipt applied. */
  logged: number;
  /** From the first hand-over to the last receipt applied (ms since the epoch). */
  span: { from: number; to: number };
}

/**
 * B3 with webhooks: the receipt rate of one worker with ENDPOINTS endpoints subscribed to `*`
 * (each state change fanned out to all three: a log row and an outbox job each, then a signed
 * POST to a receiver in this process), against the same run without endpoints, made just before
 * it (so drift over the run counts against the run with endpoints). The fan-out is on the receipt path (in the transaction's wake), the
 * POSTs on the worker's callback queue beside it.
 */
export async function webhookFanOutRows(opts: {
  api: string;
  key: string;
  /**
   * Loads B3's preload, runs one worker until every receipt is applied, stops it; `profile` names
   * the worker's CPU profile under `--cpu-prof`.
   */
  runOne: (base: number, profile: string) => Promise<ReceiptRun>;
}): Promise<BenchRow[]> {
  let received = 0;
  const arrivals: number[] = [];
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      arrivals.push(Date.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const call = async (method: string, path: string, body?: object) => {
    const res = await fetch(`${opts.api}/api/v1/json/webhooks${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-api-key': opts.key },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!res.ok) throw new Error(`${method} /webhooks${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { webhook_id: string };
  };
  try {
    const without = await opts.runOne(4_000_000, 'worker-without-webhooks');
    const ids: string[] = [];
    for (let i = 0; i < ENDPOINTS; i++)
      ids.push((await call('POST', '', { url: `${url}/${i}`, events: ['*'] })).webhook_id);
    // The worker reads an account's endpoints when it first needs them (then every 2 s).
    const withHooks = await opts.runOne(4_500_000, 'worker-with-webhooks');
    for (const id of ids) await call('DELETE', `/${id}`);
    const ratio = withHooks.rate / without.rate;
    // The worker POSTs beside the receipts (its callback queue), on the same CPU.
    const posted = arrivals.filter((t) => t >= withHooks.span.from && t <= withHooks.span.to).length;
    return [
      {
        id: 'B3',
        metric: 'delivery receipts applied, one worker, no webhook endpoints (run before the next row)',
        value: without.rate,
        unit: 'rcpt/s',
        bar: 'informational',
        ok: without.all,
      },
      ...without.cpu.map((r) => ({ ...r, metric: `${r.metric}, no webhook endpoints` })),
      {
        id: 'B3',
        // A message's message.sent and message.delivered, for each endpoint, are owed in the span.
        metric: `delivery receipts applied, one worker, ${ENDPOINTS} webhook endpoints on * (${withHooks.logged} copies logged by the last receipt, ${received} POSTed by the end)`,
        value: withHooks.rate,
        unit: 'rcpt/s',
        baseline: without.rate,
        ratio,
        bar: '≥ 0.9× without',
        ok: withHooks.all && ratio >= 0.9,
      },
      ...withHooks.cpu.map((r) => ({
        ...r,
        metric: `${r.metric}, ${ENDPOINTS} webhook endpoints (${posted} events POSTed meanwhile)`,
      })),
    ];
  } finally {
    await new Promise((r) => receiver.close(r));
  }
}
