import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountsService } from '../../src/modules/accounts/accounts.service.js';
import { verifyCallback } from '../../src/modules/callbacks/signature.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { startHttpPeer, type HttpPeer } from '../support/http-peer.js';
import { startSmppPeer, type SmppPeer } from '../support/smpp-peer.js';
import { statesOfRequests } from '../support/account-messages.js';
import { startSmppApp, startTestApp, uniqueName, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';
import { workerPool } from '../support/worker-process.js';
import { ledgerAmounts, messagesOfRequest } from '../support/probes.js';
import { eventsOfRequests } from '../support/message-probes.js';

const SMS = '/api/v1/json/bulk/sms';
const numbers = (n: number, base = 1_000_000) =>
  Array.from({ length: n }, (_, i) => `26096${String(base + i).padStart(7, '0')}`);

describe('dispatch through a real SMPP peer', () => {
  let t: TestApp;
  let tenant: Tenant;
  let smsc: SmppPeer;
  let hooks: HttpPeer;

  beforeAll(async () => {
    smsc = await startSmppPeer({
      autoReceipt: 'DELIVRD',
      receiptDelayMs: 50,
      rejectDestinations: new Set(['260969999999']),
    });
    hooks = await startHttpPeer(() => ({ status: 200 }));
    t = await startSmppApp(smsc.url, { CALLBACK_ALLOW_PRIVATE_NETWORKS: 'true' });
    tenant = await createTenant(t, { balances: { sms: '100' }, prices: { sms: '1' } });
  });
  afterAll(async () => {
    await t?.close();
    await smsc?.close();
    await hooks?.close();
  });

  it('ends DELIVERED from the receipt, with a verified signed callback; a rejected destination ends REJECTED and is refunded once', async () => {
    const res = await t
      .http()
      .post(SMS)
      .set('X-API-Key', tenant.key)
      .send({
        from: 'ACME',
        to: ['260961234567', '260969999999'],
        message: 'Hello €',
        callback_url: `${hooks.url}/dlr`,
      });
    expect(res.status).toBe(200);
    const ref = res.body.api_reference;
    await waitFor(
      async () => {
        const s = await statesOfRequests(t, [ref]);
        return s.DELIVERED === 1 && s.REJECTED === 1;
      },
      10_000,
      'DELIVERED and REJECTED',
    );
    expect(smsc.countByDestination('260961234567')).toBe(1);
    expect(smsc.messages().find((m) => m.destination === '260961234567')?.text).toBe('Hello €');
    const [rej] = (await messagesOfRequest(t, ref)).filter((m) => m.status === 'REJECTED');
    expect(rej.reason).toMatch(/^SMPP_/);
    expect(await ledgerAmounts(t, ref, 'refund')).toEqual(['1.000000']);
    const secret = await t.app.get(AccountsService).callbackSecret(tenant.username);
    const delivered = await waitFor(
      async () => hooks.requests.find((r) => (r.json as { status?: string })?.status === 'DELIVERED'),
      10_000,
      'DELIVERED callback',
    );
    expect(
      verifyCallback(
        secret,
        String(delivered.headers['x-signature-timestamp']),
        String(delivered.headers['x-signature']),
        delivered.body,
      ),
    ).toBe(true);
    expect((delivered.json as { message_id: string }).message_id).toBe(res.body.data[0].message_id);
  });

  it('splits a long message into concatenated parts that the SMSC reassembles', async () => {
    const text = 'x'.repeat(200);
    const res = await t
      .http()
      .post(SMS)
      .set('X-API-Key', tenant.key)
      .send({ from: 'ACME', to: '260961234568', message: text });
    await waitFor(
      async () => (await statesOfRequests(t, [res.body.api_reference])).DELIVERED === 1,
      10_000,
      'DELIVERED',
    );
    const parts = smsc.received.filter((r) => r.destination === '260961234568');
    expect(parts).toHaveLength(2);
    expect(smsc.messages().find((m) => m.destination === '260961234568')?.text).toBe(text);
  });
});

// Redis going away during sends is covered in faults.e2e-spec.ts (a burst, each message exactly once).

describe('a worker killed mid-batch', () => {
  const name = uniqueName();
  let smsc: SmppPeer;
  let t: TestApp;
  let tenant: Tenant;
  const workers = workerPool(name, () => ({
    SMS_TRANSPORT: 'smpp',
    SMPP_URL: smsc.url,
    SMS_CONCURRENCY: '1',
    QUEUE_LOCK_MS: '1500',
    SMPP_TPS: '2000',
  }));

  beforeAll(async () => {
    smsc = await startSmppPeer({ autoReceipt: false });
    t = await startTestApp({ QUEUE_LOCK_MS: '1500' }, name);
    tenant = await createTenant(t);
  });
  afterAll(async () => {
    workers.killAll();
    await t?.close();
    await smsc?.close();
  });

  it('sends every message after a restart, repeating at most the one slice in flight when it died', async () => {
    const to = numbers(1000, 2_000_000);
    const res = await t
      .http()
      .post(SMS)
      .set('X-API-Key', tenant.key)
      .send({ from: 'ACME', to, message: 'batch' });
    expect(res.status).toBe(200);
    const first = workers.start();
    await waitFor(async () => smsc.received.length >= 150, 20_000, 'first worker under way');
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const seenAtKill = smsc.received.length;
    expect(seenAtKill).toBeLessThan(1000);
    workers.start();
    await waitFor(
      async () => (await statesOfRequests(t, [res.body.api_reference])).SENT === 1000,
      30_000,
      'all SENT',
    );
    const counts = to.map((n) => smsc.countByDestination(n));
    expect(counts.every((c) => c >= 1)).toBe(true);
    const repeated = counts.filter((c) => c > 1).length;
    // Only submits whose answer the dead worker never recorded can go twice: at most one slice (DISPATCH_SLICE, 100).
    expect(repeated).toBeLessThanOrEqual(100);
    const events = (await eventsOfRequests(t, [res.body.api_reference])).filter((e) => e.status === 'SENT');
    expect(events).toHaveLength(1000);
  });
});
