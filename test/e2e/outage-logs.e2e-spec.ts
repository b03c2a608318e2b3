import type { LoggerService } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { MariaDbInstance } from '../support/mariadb-instance.js';
import { startSmppPeer, type SmppPeer } from '../support/smpp-peer.js';
import { startSmppApp, uniqueName, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

const SMS = '/api/v1/json/bulk/sms';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const numbers = (n: number, base: number) =>
  Array.from({ length: n }, (_, i) => `26097${String(base + i).padStart(7, '0')}`);

/** An outage is logged, not shouted: one line per cause every few seconds, with a count. */
describe('a MySQL outage while messages and receipts flow', () => {
  let mariadb: MariaDbInstance;
  let smsc: SmppPeer;
  let t: TestApp;
  let tenant: Tenant;
  const lines: Array<{ level: string; message: string; at: number }> = [];

  beforeAll(async () => {
    mariadb = await MariaDbInstance.start();
    smsc = await startSmppPeer({ autoReceipt: 'DELIVRD', receiptDelayMs: 20 });
    const name = uniqueName();
    t = await startSmppApp(smsc.url, { DATABASE_URL: mariadb.databaseUrl(name), SMPP_TPS: '300' }, name);
    tenant = await createTenant(t, { balances: { sms: '100000' }, prices: { sms: '1' } });
    const keep = (level: string) => (message: unknown) =>
      lines.push({ level, message: String(message), at: Date.now() });
    const logger: LoggerService = {
      log: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
      warn: keep('warn'),
      error: keep('error'),
      fatal: keep('fatal'),
    };
    t.app.useLogger(logger);
  }, 90_000);
  afterAll(async () => {
    await t?.app.close();
    await smsc?.close();
    await mariadb?.destroy();
  });

  it('writes a few dozen warning lines for a 5 s outage, not one per failed receipt', async () => {
    for (let k = 0; k < 15; k++) {
      const res = await t
        .http()
        .post(SMS)
        .set('X-API-Key', tenant.key)
        .send({ from: 'ACME', to: numbers(200, k * 1000), message: `blip ${k}` });
      expect(res.status).toBe(200);
    }
    await waitFor(async () => smsc.received.length >= 600, 30_000, 'dispatch and receipts under way');
    const from = Date.now();
    const { downMs } = await mariadb.restart({ signal: 'SIGKILL', downMs: 5000 });
    await sleep(6000); // the windows open during the outage close and print their counts
    const during = lines.filter((l) => l.at >= from);
    const warns = during.filter((l) => l.level === 'warn');
    const errors = during.filter((l) => l.level !== 'warn');
    console.info(
      `MySQL down ${downMs} ms while ${smsc.received.length} submits and their receipts flowed: ${warns.length} warn and ${errors.length} error lines`,
    );
    // One line per cause per 5 s window, plus its count: a handful of causes over ~11 s.
    expect(warns.length).toBeLessThanOrEqual(60);
    expect(errors.length).toBeLessThanOrEqual(20);
  }, 120_000);
});
