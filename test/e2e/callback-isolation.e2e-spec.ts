import { createConnection } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { startHttpPeer, type HttpPeer } from '../support/http-peer.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

const SMS = '/api/v1/json/bulk/sms';
const numbers = (n: number, base: number) => Array.from({ length: n }, (_, i) => `26097${String(base + i).padStart(7, '0')}`);

describe('callback targets are isolated from one another', () => {
  let t: TestApp;
  let hanging: HttpPeer;
  let healthy: HttpPeer;
  let slowTenant: Tenant;
  let otherTenant: Tenant;

  beforeAll(async () => {
    // Accepts the request and never answers (until told otherwise below).
    hanging = await startHttpPeer(() => ({ status: 200, delayMs: 120_000 }));
    healthy = await startHttpPeer(() => ({ status: 200 }));
    t = await startTestApp({
      RUN_WORKERS: 'true',
      SANDBOX_DELIVERY_DELAY_MS: '100',
      CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true',
      CALLBACK_TIMEOUT_MS: '5000',
      CALLBACK_BACKOFF_BASE_MS: '500',
      CALLBACK_CIRCUIT_OPEN_MS: '2000',
    });
    slowTenant = await createTenant(t);
    otherTenant = await createTenant(t);
  });
  afterAll(async () => {
    await t?.close();
    await hanging?.close();
    await healthy?.close();
  });

  it("delivers a healthy target's callbacks while another target hangs on 200 events, and the hanging target's events still arrive once it answers", async () => {
    const slow = await t.http().post(SMS).set('X-API-Key', slowTenant.key)
      .send({ from: 'ACME', to: numbers(100, 0), message: 'to a hanging hook', callback_url: `${hanging.url}/dlr` });
    expect(slow.status).toBe(200);
    const started = Date.now();
    const other = await t.http().post(SMS).set('X-API-Key', otherTenant.key)
      .send({ from: 'ACME', to: numbers(20, 1000), message: 'to a healthy hook', callback_url: `${healthy.url}/dlr` });
    expect(other.status).toBe(200);

    // SENT and DELIVERED for each of the 20 messages. The deadline is generous (a loaded
    // machine); before targets were isolated, none of the 40 came within 90 s.
    const distinct = () => new Set(healthy.requests.map((r) => (r.json as { event_id: string }).event_id)).size;
    await waitFor(async () => distinct() === 40, 40_000, "the healthy target's 40 callbacks").catch((err: Error) => {
      throw new Error(`${err.message}; got ${distinct()}`);
    });
    const healthyMs = Date.now() - started;
    const hangingSoFar = hanging.requests.length;

    const db = await createConnection({ host: '127.0.0.1', user: 'root', database: `${t.name}_notification` });
    try {
      const skipped = async () => {
        const [[row]] = (await db.query("SELECT COUNT(*) AS n FROM callback_attempts WHERE account_id = ? AND outcome = 'circuit_open'", [
          slowTenant.account.id,
        ])) as unknown as [Array<{ n: number }>];
        return Number(row.n);
      };
      // It keeps timing out until its circuit opens: its due attempts are then recorded, not sent.
      await waitFor(async () => (await skipped()) > 0, 60_000, 'the hanging target’s circuit to open');
      // The hanging target recovers: every one of its events is delivered, within its retries.
      hanging.setHandler(() => ({ status: 200 }));
      const delivered = async () => {
        const [[row]] = (await db.query(
          "SELECT COUNT(DISTINCT event_id) AS n FROM callback_attempts WHERE account_id = ? AND outcome = 'delivered'",
          [slowTenant.account.id],
        )) as unknown as [Array<{ n: number }>];
        return Number(row.n);
      };
      await waitFor(async () => (await delivered()) === 200, 150_000, 'all 200 events of the recovered target delivered');
      const open = { n: await skipped() };
      console.info(
        `hanging target with 200 events: the healthy target's 40 callbacks arrived in ${healthyMs} ms ` +
          `(${hangingSoFar} calls reached the hanging target meanwhile, ${open.n} attempts skipped by its open circuit); all 200 delivered after it recovered`,
      );
    } finally {
      await db.end();
    }
  }, 240_000);
});
