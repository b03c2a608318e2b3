import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { requestLogs } from '../support/account-probes.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

const SMS = '/api/v1/json/bulk/sms';

describe('request logs under a flood of refusals', () => {
  let t: TestApp;
  let limited: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    t = await startTestApp({ REQUEST_LOG_REFUSAL_WINDOW_SECONDS: '3' });
    limited = await createTenant(t, { key: { rateLimit: { limit: 1, windowSeconds: 60 } } });
    other = await createTenant(t, { key: { rateLimit: { limit: 1, windowSeconds: 60 } } });
  });
  afterAll(async () => t?.close());

  const send = (key: string) =>
    t.http().post(SMS).set('X-API-Key', key).send({ from: 'ACME', to: '260971234567', message: 'hi' });
  const rows = (keyId: string) => requestLogs(t, { keyId }, 'status', 'repeat_count');

  /** The 429 rows of a key once they add up to `n` refusals. */
  const refusalRows = (keyId: string, n: number) =>
    waitFor(
      async () => {
        const r = (await rows(keyId)).filter((x) => x.status === 429);
        return r.reduce((sum, x) => sum + x.repeat_count, 0) === n ? r : null;
      },
      15_000,
      `429 rows adding up to ${n}`,
    );

  it('writes the 429s of one key in a window as one row carrying their count, apart from other keys', async () => {
    expect((await send(limited.key)).status).toBe(200);
    const flood = await Promise.all(Array.from({ length: 30 }, () => send(limited.key)));
    expect(flood.map((r) => r.status)).toEqual(Array(30).fill(429));
    expect((await send(other.key)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await send(other.key)).status).toBe(429);
    // Sent at once, the 30 fall in one window (a window is 3 s); however slow the machine, they are never 30 rows.
    const mine = await refusalRows(limited.apiKey.id, 30);
    expect(mine.length).toBeLessThanOrEqual(2);
    expect((await rows(limited.apiKey.id)).filter((x) => x.status === 200)).toEqual([
      { status: 200, repeat_count: 1 },
    ]);
    const theirs = await refusalRows(other.apiKey.id, 3);
    expect(theirs.length).toBeLessThanOrEqual(2);
  });

  it('opens a new window once the last one is written', async () => {
    const before = (await rows(limited.apiKey.id)).filter((x) => x.status === 429).length;
    const again = await Promise.all(Array.from({ length: 5 }, () => send(limited.key)));
    expect(again.map((r) => r.status)).toEqual(Array(5).fill(429));
    const after = await refusalRows(limited.apiKey.id, 35);
    expect(after.length).toBeGreaterThan(before);
    expect(after.length - before).toBeLessThanOrEqual(2);
  });
});
