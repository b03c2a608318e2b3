import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { startSmppPeer, type SmppPeer } from '../support/smpp-peer.js';
import { storedBalance } from '../support/account-probes.js';
import { ledgerAmounts, messagesOfRequest } from '../support/probes.js';
import { storeProblems } from '../support/store-invariants.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

const SMS = '/api/v1/json/bulk/sms';
const N = 5000;
const PRICE = 0.25;

/**
 * A cancel that races dispatch: while a 5,000-message request is being handed to the SMSC, two
 * cancels of it arrive at once. Every message ends either sent (the SMSC has it, once) or
 * cancelled (the SMSC never saw it), never both; the refunds are exactly the cancelled
 * messages' charges, given once; the balance equals the ledger.
 */
describe('cancel racing the hand-over of a 5,000-message request', () => {
  let smsc: SmppPeer;
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    smsc = await startSmppPeer({ autoReceipt: false });
    t = await startTestApp({
      RUN_WORKERS: 'true',
      SMS_TRANSPORT: 'smpp',
      SMPP_URL: smsc.url,
      // Slow enough that the cancel lands in the middle of the hand-over.
      SMPP_TPS: '1000',
    });
    tenant = await createTenant(t, { balances: { sms: '2000' }, prices: { sms: String(PRICE) } });
  });
  afterAll(async () => {
    await t?.close();
    await smsc?.close();
  });

  it('leaves every message sent or cancelled, never both; refunds equal the cancelled charges; balance equals the ledger', async () => {
    const to = Array.from({ length: N }, (_, i) => `26095${String(i).padStart(7, '0')}`);
    const res = await t
      .http()
      .post(SMS)
      .set('X-API-Key', tenant.key)
      .send({ from: 'ACME', to, message: 'race' });
    expect(res.status).toBe(200);
    const ref = res.body.api_reference;
    await waitFor(async () => smsc.received.length >= 500, 60_000, 'hand-over under way');
    const t0 = Date.now();
    const atCancel = smsc.received.length;
    const cancels = await Promise.all(
      [0, 1].map(() => t.http().post(`/api/v1/json/bulk/${ref}/cancel`).set('X-API-Key', tenant.key)),
    );
    for (const c of cancels) expect(c.status).toBe(200);
    console.info(
      `cancels answered in ${Date.now() - t0} ms; SMSC had ${atCancel}, then ${smsc.received.length}: ${JSON.stringify(cancels.map((c) => c.body))}`,
    );

    const rows = await waitFor(
      async () => {
        const r = await messagesOfRequest(t, ref);
        return r.every((m) => m.status === 'SENT' || m.status === 'CANCELLED') ? r : null;
      },
      120_000,
      'every message SENT or CANCELLED',
    );
    const cancelled = rows.filter((m) => m.status === 'CANCELLED');
    const sent = rows.filter((m) => m.status === 'SENT');
    // The race really happened: some went, some were stopped.
    expect(sent.length).toBeGreaterThan(0);
    expect(cancelled.length).toBeGreaterThan(0);
    expect(sent.length + cancelled.length).toBe(N);

    // Never both: the SMSC saw no cancelled message, and every sent one exactly once.
    expect(cancelled.filter((m) => smsc.countByDestination(m.recipient) > 0).length).toBe(0);
    expect(sent.filter((m) => smsc.countByDestination(m.recipient) !== 1).length).toBe(0);
    expect(smsc.received.length).toBe(sent.length);

    // The two answers share the cancelled messages between them, each counted once.
    const answered = cancels.reduce((n, c) => n + c.body.cancelled, 0);
    expect(answered).toBe(cancelled.length);
    const refundedAnswered = cancels.reduce((n, c) => n + c.body.refunded, 0);
    expect(refundedAnswered).toBeCloseTo(cancelled.length * PRICE, 6);
    for (const c of cancels) expect(c.body.cancelled + c.body.not_cancelled).toBe(N);

    const refunds = await ledgerAmounts(t, ref, 'refund');
    expect(refunds.length).toBe(cancelled.length);
    expect(refunds.reduce((sum, a) => sum + Number(a), 0)).toBeCloseTo(cancelled.length * PRICE, 6);
    const balance = await storedBalance(t, tenant.account.id, 'sms');
    expect(Number(balance)).toBeCloseTo(2000 - N * PRICE + cancelled.length * PRICE, 6);
    expect(await storeProblems(t)).toEqual([]);
    console.info(
      `cancel during hand-over of ${N}: ${sent.length} sent, ${cancelled.length} cancelled, 0 both`,
    );
  }, 180_000);
});
