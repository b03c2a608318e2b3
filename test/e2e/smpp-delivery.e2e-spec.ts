import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { MariaDbInstance } from '../support/mariadb-instance.js';
import { startSmppPeer, type SmppPeer } from '../support/smpp-peer.js';
import { startSmppApp, uniqueName, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { startHttpPeer, type HttpPeer } from '../support/http-peer.js';
import { eventsOfRequests } from '../support/message-probes.js';
import { statesOfRequests } from '../support/account-messages.js';
import { appliedReceiptCount, reportsAppliedOnArrival } from '../support/receipt-probes.js';

/**
 * The delivery promise over SMPP under ordinary faults: a receipt is acknowledged only once
 * stored, a hand-over is recorded whatever MySQL does, concurrent jobs never send twice, and a
 * slow SMSC is waited for rather than sent to twice. The SMSC is the local peer; submit_sm are
 * counted per destination there.
 */

const SMS = '/api/v1/json/bulk/sms';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits for the condition but does not throw: the test prints its figures, then asserts them. */
const settle = (check: () => Promise<boolean>, ms: number) =>
  waitFor(async () => check().catch(() => false), ms).catch(() => undefined);
let block = 0;
/** n destinations never used before in this file. */
const numbers = (n: number) => {
  const base = 1_000_000 + 10_000 * block++;
  return Array.from({ length: n }, (_, i) => `26097${String(base + i).padStart(7, '0')}`);
};

async function send(
  t: TestApp,
  tenant: Tenant,
  to: string[],
  message = 'delivery promise',
  callbackUrl?: string,
): Promise<string> {
  const res = await t
    .http()
    .post(SMS)
    .set('X-API-Key', tenant.key)
    .send({ from: 'ACME', to, message, ...(callbackUrl ? { callback_url: callbackUrl } : {}) })
    .timeout(30_000);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return String(res.body.api_reference);
}

/** submit_sm per destination beyond the first (a message split in parts would count each part). */
function duplicates(smsc: SmppPeer, destinations: string[]): { missing: number; extra: number } {
  let missing = 0;
  let extra = 0;
  for (const d of destinations) {
    const n = smsc.countByDestination(d);
    if (n === 0) missing++;
    else extra += n - 1;
  }
  return { missing, extra };
}

describe('receipts arriving while MySQL is down', () => {
  const name = uniqueName();
  let mariadb: MariaDbInstance;
  let smsc: SmppPeer;
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    mariadb = await MariaDbInstance.start();
    smsc = await startSmppPeer({ redeliverReceiptsAfterMs: 500 });
    t = await startSmppApp(smsc.url, { DATABASE_URL: mariadb.databaseUrl(name) }, name);
    tenant = await createTenant(t, { balances: { sms: '100000' }, prices: { sms: '0.01' } });
    t.app.useLogger(false);
  }, 60_000);
  afterAll(async () => {
    await t?.app.close();
    await smsc?.close();
    await mariadb?.destroy();
  });

  it('are refused (ESME_RX_T_APPN) until stored, redelivered by the SMSC, and every message ends DELIVERED', async () => {
    const to = numbers(300);
    const refs = [
      await send(t, tenant, to.slice(0, 100)),
      await send(t, tenant, to.slice(100, 200)),
      await send(t, tenant, to.slice(200)),
    ];
    await waitFor(async () => (await statesOfRequests(t, refs)).SENT === 300, 30_000, '300 SENT');
    const ids = smsc.received.map((r) => r.messageId);
    expect(ids).toHaveLength(300);

    await mariadb.stop('SIGKILL');
    for (const id of ids) smsc.sendReceiptUntilAcked(id, 'DELIVRD');
    await sleep(5000);
    const refusedWhileDown = smsc.stats.receiptsRefused;
    await mariadb.start();

    await settle(async () => (await statesOfRequests(t, refs)).DELIVERED === 300, 60_000);
    // A receipt answered ESME_RX_T_APPN while its batch was still being retried comes once more and is then acknowledged.
    await settle(async () => smsc.stats.receiptsAcked >= 300, 30_000);
    const counts = await statesOfRequests(t, refs);
    const applied = await appliedReceiptCount(t);
    console.info(
      `receipts during a MySQL outage of 5 s: 300 messages, ${counts.SENT ?? 0} left in SENT, ${refusedWhileDown} deliver_sm refused while down and redelivered, ${smsc.stats.receiptsAcked} acknowledged`,
    );
    expect(counts).toEqual({ DELIVERED: 300 });
    expect(refusedWhileDown).toBeGreaterThanOrEqual(300);
    expect(smsc.stats.receiptsAcked).toBeGreaterThanOrEqual(300);
    expect(Number(applied)).toBe(300);
  }, 120_000);
});

describe('MySQL restarted during dispatch', () => {
  const name = uniqueName();
  let mariadb: MariaDbInstance;
  let smsc: SmppPeer;
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    mariadb = await MariaDbInstance.start();
    smsc = await startSmppPeer({ autoReceipt: 'DELIVRD', receiptDelayMs: 20, redeliverReceiptsAfterMs: 500 });
    t = await startSmppApp(
      smsc.url,
      { DATABASE_URL: mariadb.databaseUrl(name), SMPP_TPS: '400', DISPATCH_SLICE: '50' },
      name,
    );
    tenant = await createTenant(t, { balances: { sms: '100000' }, prices: { sms: '0.01' } });
    t.app.useLogger(false);
  }, 60_000);
  afterAll(async () => {
    await t?.app.close();
    await smsc?.close();
    await mariadb?.destroy();
  });

  it('records what was handed over once MySQL is back: no message sent twice, none lost, over repeated restarts', async () => {
    const to = numbers(2400);
    const refs: string[] = [];
    for (let i = 0; i < to.length; i += 200) refs.push(await send(t, tenant, to.slice(i, i + 200)));
    // About 6 s of dispatch at 400 submit_sm/s; three restarts while it runs.
    let restarts = 0;
    for (const signal of ['SIGKILL', 'SIGTERM', 'SIGKILL'] as const) {
      await sleep(800);
      if (smsc.stats.submits >= to.length) break;
      await mariadb.restart({ signal, downMs: 1000 });
      restarts++;
    }
    await settle(async () => (await statesOfRequests(t, refs)).DELIVERED === to.length, 90_000);
    const { missing, extra } = duplicates(smsc, to);
    console.info(
      `MySQL restarts during dispatch: ${restarts} restarts, ${to.length} messages, ${smsc.stats.submits} submit_sm, ${extra} duplicates, ${missing} missing`,
    );
    expect(restarts).toBeGreaterThan(0);
    expect(missing).toBe(0);
    expect(extra).toBe(0);
    expect(await statesOfRequests(t, refs)).toEqual({ DELIVERED: to.length });
  }, 180_000);
});

describe('receipts in batches applied at once', () => {
  let smsc: SmppPeer;
  let hooks: HttpPeer;
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    smsc = await startSmppPeer();
    hooks = await startHttpPeer(() => ({ status: 200 }));
    t = await startSmppApp(smsc.url, { CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true' });
    tenant = await createTenant(t, { balances: { sms: '100000' }, prices: { sms: '0.01' } });
  });
  afterAll(async () => {
    await t?.close();
    await smsc?.close();
    await hooks?.close();
  });

  it('a receipt sent twice and the parts of one message in different batches: one DELIVERED, one event, one callback each', async () => {
    const short = numbers(300);
    const long = numbers(30);
    const dlr = `${hooks.url}/dlr`;
    const refs = [
      await send(t, tenant, short, 'one part', dlr),
      await send(t, tenant, long, 'two parts '.repeat(20), dlr),
    ];
    await waitFor(async () => (await statesOfRequests(t, refs)).SENT === 330, 30_000, '330 SENT');
    const submits = smsc.received.filter((r) => [...short, ...long].includes(r.destination));
    expect(submits).toHaveLength(360);
    const firstParts = submits.filter((r) => !r.udh || r.udh.seq === 1).map((r) => r.messageId);
    const secondParts = submits.filter((r) => r.udh?.seq === 2).map((r) => r.messageId);
    // Every receipt once, then, while those are applied, the second parts and every receipt again:
    // the worker applies two batches at once, so copies and a message's parts meet in both.
    const answers = firstParts.map((id) => smsc.sendReceipt(id));
    await sleep(5);
    answers.push(...[...secondParts, ...firstParts].reverse().map((id) => smsc.sendReceipt(id)));
    answers.push(...secondParts.map((id) => smsc.sendReceipt(id)));
    expect(new Set(await Promise.all(answers))).toEqual(new Set([0]));

    await settle(async () => (await statesOfRequests(t, refs)).DELIVERED === 330, 30_000);
    expect(await statesOfRequests(t, refs)).toEqual({ DELIVERED: 330 });
    const delivered = (await eventsOfRequests(t, refs)).filter((e) => e.status === 'DELIVERED');
    expect(delivered).toHaveLength(330);
    expect(new Set(delivered.map((e) => e.messageId)).size).toBe(330);
    const callbacks = () =>
      hooks.requests.filter((r) => (r.json as { status?: string })?.status === 'DELIVERED');
    await settle(async () => callbacks().length >= 330, 30_000);
    await sleep(500);
    const ids = callbacks().map((r) => (r.json as { message_id: string }).message_id);
    expect(ids).toHaveLength(330);
    expect(new Set(ids).size).toBe(330);
  }, 90_000);
});

describe('concurrent sends and a slow SMSC', () => {
  let smsc: SmppPeer;
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    smsc = await startSmppPeer({ autoReceipt: 'DELIVRD', redeliverReceiptsAfterMs: 200 });
    t = await startSmppApp(smsc.url, {
      SMPP_RESPONSE_TIMEOUT_MS: '300',
    });
    tenant = await createTenant(t, { balances: { sms: '100000' }, prices: { sms: '0.01' } });
  });
  afterAll(async () => {
    await t?.close();
    await smsc?.close();
  });

  it('five concurrent 100-recipient sends: each message submitted exactly once, all DELIVERED', async () => {
    const lists = Array.from({ length: 5 }, () => numbers(100));
    const refs = await Promise.all(lists.map((to) => send(t, tenant, to)));
    await settle(async () => (await statesOfRequests(t, refs)).DELIVERED === 500, 60_000);
    const { missing, extra } = duplicates(smsc, lists.flat());
    console.info(
      `five concurrent 100-recipient sends: ${smsc.stats.submits} submit_sm for 500 messages, ${extra} duplicates`,
    );
    expect({ missing, extra }).toEqual({ missing: 0, extra: 0 });
    // The peer sends each receipt right after its submit_sm_resp, before the worker has written
    // SENT: the receipt waits for that record and is stored already applied, not stored unmatched
    // and matched a second time. Without the wait none of the 500 is (0 when tried). A record
    // slower than HandOversInFlight's bound, 2 s, lets its slice's 100 through the slower way,
    // which a machine loaded by the rest of the suite has done once: most, not all, must wait.
    expect(await reportsAppliedOnArrival(t, refs)).toBeGreaterThanOrEqual(300);
  }, 90_000);

  it('an SMSC answering submit_sm after the response timeout gets each message once', async () => {
    smsc.options.respondDelayMs = 1200;
    try {
      const to = numbers(60);
      const ref = await send(t, tenant, to);
      await settle(async () => (await statesOfRequests(t, [ref])).DELIVERED === 60, 60_000);
      const { missing, extra } = duplicates(smsc, to);
      console.info(
        `SMSC answering after 1.2 s with a 0.3 s response timeout: 60 messages, ${extra} duplicates`,
      );
      expect({ missing, extra }).toEqual({ missing: 0, extra: 0 });
    } finally {
      smsc.options.respondDelayMs = 0;
    }
  }, 90_000);
});
