import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

const POLL_MS = 4000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The scanners poll every SCHEDULE_POLL_MS / FALLBACK_POLL_MS, and wake at the due time of work
 * that falls due before their next poll. Two items due two seconds apart, with polls four seconds
 * apart: a scanner that only polled would reach at most one of them within a second of its due
 * time.
 */
describe('scheduled releases and fallbacks happen at their due time, not at the next poll', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await startTestApp({
      RUN_WORKERS: 'true',
      SCHEDULE_POLL_MS: String(POLL_MS),
      FALLBACK_POLL_MS: String(POLL_MS),
      // Chat messages stay SENT (no receipt): their fallbacks fall due.
      SANDBOX_DELIVERY_DELAY_MS: '600000',
    });
    tenant = await createTenant(t, {
      balances: { sms: '100', chat: '100' },
      prices: { sms: '0.25', chat: '1' },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('releases each scheduled request, and makes each fallback SMS, within a second of its due time', async () => {
    const started = Date.now();
    const scheduled: Array<{ ref: string; sendAt: number }> = [];
    for (const [i, ahead] of [6, 8].entries()) {
      const res = await t
        .http()
        .post('/api/v1/json/bulk/sms')
        .set('X-API-Key', tenant.key)
        .send({
          from: 'ACME',
          message: 'later',
          to: [`26097120000${i}`],
          send_at: new Date(started + ahead * 1000).toISOString(),
        });
      expect(res.status).toBe(200);
      scheduled.push({ ref: res.body.api_reference, sendAt: Date.parse(res.body.send_at) });
    }
    const chats: string[] = [];
    for (const i of [0, 1]) {
      if (i) await sleep(started + 2000 - Date.now());
      const res = await t
        .http()
        .post('/api/v1/json/bulk/chat')
        .set('X-API-Key', tenant.key)
        .send({
          username: tenant.username,
          password: tenant.password,
          senderid: '260970000001',
          message: 'Your parcel is at the depot',
          recipient: [`26097130000${i}`],
          fallback: { channel: 'sms', after_seconds: 10, from: 'ACME' },
        });
      expect(res.status).toBe(200);
      chats.push(res.body.reference);
    }

    // Released: the ACKNOWLEDGED event the release writes, against the request's send_at.
    const releasedLate = async (ref: string, sendAt: number): Promise<number | null> => {
      const [row] = (await t.ds.query(
        `SELECT MIN(e.occurred_at) AS at FROM message_events e JOIN messages m ON m.id = e.message_id
          WHERE m.send_request_id = ? AND e.status = 'ACKNOWLEDGED'`,
        [ref],
      )) as Array<{ at: Date | null }>;
      return row?.at ? row.at.getTime() - sendAt : null;
    };
    // Made: the fallback SMS's acceptance, against the chat message's fallback due time.
    const fallbackLate = async (ref: string): Promise<number | null> => {
      const [row] = (await t.ds.query(
        `SELECT TIMESTAMPDIFF(MICROSECOND, c.created_at + INTERVAL 10 SECOND, f.created_at) / 1000 AS late
           FROM messages c JOIN messages f ON f.fallback_of = c.id WHERE c.send_request_id = ?`,
        [ref],
      )) as Array<{ late: string }>;
      return row ? Number(row.late) : null;
    };
    const late: Record<string, number | null> = {};
    await waitFor(
      async () => {
        for (const s of scheduled) late[`release ${s.ref}`] ??= await releasedLate(s.ref, s.sendAt);
        for (const c of chats) late[`fallback ${c}`] ??= await fallbackLate(c);
        return Object.keys(late).length === 4 && Object.values(late).every((v) => v !== null);
      },
      25_000,
      'both requests released and both fallbacks made',
    );
    for (const [what, ms] of Object.entries(late)) {
      expect(ms, what).toBeGreaterThanOrEqual(0);
      expect(ms, what).toBeLessThan(1000);
    }
  });
});
