import type { AddressInfo } from 'node:net';
import { createTenant, type Tenant } from '../../../test/factories/account.factory.js';
import { startHttpPeer, type HttpPeer, type PeerResponse } from '../../../test/support/http-peer.js';
import { startTestApp, type TestApp } from '../../../test/support/test-app.js';

/** The real service, listening on a free loopback port, with one account and its live key. */
export interface RunningService {
  t: TestApp;
  url: string;
  tenant: Tenant;
  close(): Promise<void>;
}

export async function startService(overrides: Record<string, string> = {}): Promise<RunningService> {
  const t = await startTestApp(overrides);
  await t.app.listen(0, '127.0.0.1');
  const { port } = t.app.getHttpServer().address() as AddressInfo;
  const tenant = await createTenant(t, { balances: { sms: '100', email: '100', chat: '100' } });
  return { t, url: `http://127.0.0.1:${port}`, tenant, close: () => t.close() };
}

/** What the proxy does with the n-th request (from 0): pass it on, or answer it itself. */
export type ProxyPlan = (n: number) => 'forward' | 'forward-late' | PeerResponse;

const PASSED_BACK = ['content-type', 'retry-after', 'x-request-id', 'idempotent-replayed'];

/**
 * A real HTTP hop between the client and the service, as a load balancer would be: it passes
 * requests on, answers some itself (a 503 of its own), or passes one on and answers it only
 * after `lateMs` (the service has done the work; the client has given up waiting).
 */
export async function startProxy(upstream: string, plan: ProxyPlan, lateMs = 3_000): Promise<HttpPeer> {
  let n = 0;
  return startHttpPeer(async (req) => {
    const step = plan(n++);
    if (typeof step === 'object') return step;
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(
        ([name]) => !['host', 'connection', 'content-length', 'keep-alive'].includes(name),
      ),
    ) as Record<string, string>;
    const res = await fetch(`${upstream}${req.path}`, {
      method: req.method,
      headers,
      body: req.method === 'GET' || req.method === 'HEAD' ? undefined : req.body,
    });
    const passed = Object.fromEntries(
      PASSED_BACK.flatMap((name) => (res.headers.has(name) ? [[name, res.headers.get(name)!]] : [])),
    );
    return {
      status: res.status,
      body: await res.text(),
      headers: passed,
      delayMs: step === 'forward-late' ? lateMs : undefined,
    };
  });
}
