import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { runCli } from '../support/cli-in-process.js';
import { netSmppMissing, startNetSmppSmsc, type NetSmppSmsc } from '../support/net-smpp-smsc.js';
import { deliveryReports, messagesWithParts } from '../support/receipt-probes.js';
import { startSmppPeer, type SmppPeer } from '../support/smpp-peer.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { MYSQL_ROOT, testEnv } from '../support/test-env.js';
import { waitFor } from '../support/wait.js';

/**
 * Receipts from two SMSCs that number their messages the same way (1, 2, 3…): each connector's
 * receipt settles the message that went out on that connector, whether it arrives after the
 * message is recorded SENT or before (kept for late matching). Connectors and routes are set with
 * the CLI while the app and its in-process workers run, with no SMPP_URL.
 */

const SMS = '/api/v1/json/bulk/sms';
// Routed to smsc-a and smsc-b by their prefixes.
const TO_A = '260971000001';
const TO_B = '260961000002';
// Routed to two Net::SMPP SMSCs (an independent SMPP implementation), both numbering from A7BF0.
// Their receipt follows the destination's last digit: 5 UNDELIV, 0 DELIVRD (net-smpp-smsc.pl).
const TO_PERL_A = '260951000005';
const TO_PERL_B = '260941000010';
const missing = netSmppMissing();
if (missing) console.warn(`\n!!! SKIPPING the Net::SMPP case of receipts across connectors: ${missing}\n`);

describe('delivery receipts across connectors that issue the same ids', () => {
  let t: TestApp;
  let tenant: Tenant;
  let peerA: SmppPeer;
  let peerB: SmppPeer;
  let perlA: NetSmppSmsc | undefined;
  let perlB: NetSmppSmsc | undefined;

  const ok = async (...args: string[]) => {
    const env = {
      ...testEnv(t.name),
      LOG_DATABASE_URL: `${MYSQL_ROOT}/${t.name}_log`,
      NOTIFICATION_DATABASE_URL: `${MYSQL_ROOT}/${t.name}_notification`,
    };
    const r = await runCli(env, args);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  };

  /** Sends one message to each recipient in one request; resolves once every one is SENT. */
  async function sendAll(to: string[]) {
    const res = await t
      .http()
      .post(SMS)
      .set('X-API-Key', tenant.key)
      .send({ from: 'ACME', to: to.map((r) => `+${r}`), message: 'which smsc?' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const ref = res.body.api_reference as string;
    await waitFor(
      async () => (await states(ref)).every((m) => m.status !== 'ACKNOWLEDGED'),
      30_000,
      'all handed over',
    );
    return ref;
  }

  const states = (ref: string) => messagesWithParts(t, ref);
  /** The stored receipts with a provider id: connector and the message each was applied to. */
  const receipts = async (providerMessageId: string) =>
    (await deliveryReports(t, { providerMessageId })).map((r) => ({
      connector: r.connector,
      message_id: r.message_id,
      applied: r.applied_at !== null,
    }));

  /** recipient → status, once no message of the request is still SENT (or after 15 s, as it is then). */
  async function settled(ref: string): Promise<Record<string, string>> {
    await waitFor(
      async () => (await states(ref)).every((m) => m.status !== 'SENT'),
      15_000,
      'every message settled by its receipt',
    ).catch(() => undefined);
    return Object.fromEntries((await states(ref)).map((m) => [m.recipient, m.status]));
  }

  beforeAll(async () => {
    peerA = await startSmppPeer({ sequentialIds: true });
    peerB = await startSmppPeer({ sequentialIds: true });
    t = await startTestApp({ RUN_WORKERS: 'true', SMS_TRANSPORT: 'smpp' });
    tenant = await createTenant(t, { balances: { sms: '1000' }, prices: { sms: '0.10' } });
    await ok('connectors', 'add', '--name', 'smsc-a', '--url', peerA.url);
    await ok('connectors', 'add', '--name', 'smsc-b', '--url', peerB.url);
    await ok('routes', 'add', '--prefix', '26097', '--connector', 'smsc-a');
    await ok('routes', 'add', '--prefix', '26096', '--connector', 'smsc-b');
    if (!missing) {
      perlA = await startNetSmppSmsc();
      perlB = await startNetSmppSmsc();
      await ok('connectors', 'add', '--name', 'perl-a', '--url', perlA.url);
      await ok('connectors', 'add', '--name', 'perl-b', '--url', perlB.url);
      await ok('routes', 'add', '--prefix', '26095', '--connector', 'perl-a');
      await ok('routes', 'add', '--prefix', '26094', '--connector', 'perl-b');
    }
    // Every process re-reads routes within a second; the workers bind new connectors within 2 s.
    await new Promise((r) => setTimeout(r, 1100));
    await waitFor(async () => peerA.boundSessions() > 0 && peerB.boundSessions() > 0, 10_000, 'both binds');
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await peerA?.close();
    await peerB?.close();
    await perlA?.close();
    await perlB?.close();
  });

  it("settles each message by its own connector's receipt when both SMSCs issued the same id", async () => {
    // B's message first, so A's is the newer of the two messages with id 1.
    const ref = await sendAll([TO_B, TO_A]);
    expect(
      (await states(ref)).map((m) => [m.recipient, m.status, m.connector, m.provider_message_id]),
    ).toEqual([
      [TO_B, 'SENT', 'smsc-b', '1'],
      [TO_A, 'SENT', 'smsc-a', '1'],
    ]);

    expect(await peerB.sendReceipt('1', 'DELIVRD')).toBe(0);
    expect(await peerA.sendReceipt('1', 'UNDELIV')).toBe(0);

    expect(await settled(ref)).toEqual({ [TO_B]: 'DELIVERED', [TO_A]: 'UNDELIVERED' });
    const reports = (await deliveryReports(t, { providerMessageId: '1' })).map(
      ({ connector, provider_message_id, message_id }) => ({ connector, provider_message_id, message_id }),
    );
    const idOf = Object.fromEntries((await states(ref)).map((m) => [m.connector, String(m.id)]));
    expect(reports).toEqual([
      { connector: 'smsc-a', provider_message_id: '1', message_id: idOf['smsc-a'] },
      { connector: 'smsc-b', provider_message_id: '1', message_id: idOf['smsc-b'] },
    ]);
  });

  it('matches receipts that arrived before their messages were recorded within their own connectors too', async () => {
    // Both SMSCs' next id is 2: their receipts come first and match nothing yet.
    expect(await peerA.sendReceipt('2', 'DELIVRD')).toBe(0);
    expect(await peerB.sendReceipt('2', 'UNDELIV')).toBe(0);
    expect((await receipts('2')).filter((r) => !r.applied)).toHaveLength(2);

    const ref = await sendAll([TO_A, TO_B]);
    expect((await states(ref)).map((m) => m.provider_message_id)).toEqual(['2', '2']);
    expect(await settled(ref)).toEqual({ [TO_A]: 'DELIVERED', [TO_B]: 'UNDELIVERED' });
    // Each stored receipt names its connector and was applied to that connector's message (the
    // rows are marked applied just after the state change, so the check waits for the mark).
    const appliedRows = async () =>
      (await receipts('2'))
        .filter((r) => r.applied)
        .map(({ connector, message_id }) => ({ connector, message_id }));
    await waitFor(
      async () => (await appliedRows()).length >= 2,
      10_000,
      'both receipts marked applied',
    ).catch(() => undefined);
    const applied = await appliedRows();
    const idOf = Object.fromEntries((await states(ref)).map((m) => [m.connector, String(m.id)]));
    expect(applied).toEqual([
      { connector: 'smsc-a', message_id: idOf['smsc-a'] },
      { connector: 'smsc-b', message_id: idOf['smsc-b'] },
    ]);
  });

  it.skipIf(missing !== null)(
    'settles the receipts of two Net::SMPP SMSCs that issue the same ids, each within its own connector',
    async () => {
      // Net::SMPP receipts at once (right after its submit_sm_resp), so the collision itself is
      // driven by the peers above; here an independent SMPP implementation's binds name their
      // connector on every receipt, and its decimal receipt ids match hexadecimal submit ids within it.
      const ref = await sendAll([TO_PERL_A, TO_PERL_B]);
      const sent = await states(ref);
      expect(sent.map((m) => [m.recipient, m.connector, m.provider_message_id?.toUpperCase()])).toEqual([
        [TO_PERL_A, 'perl-a', 'A7BF0'],
        [TO_PERL_B, 'perl-b', 'A7BF0'],
      ]);
      expect(await settled(ref)).toEqual({ [TO_PERL_A]: 'UNDELIVERED', [TO_PERL_B]: 'DELIVERED' });
      const reports = (await deliveryReports(t, { connectorPrefix: 'perl-' })).map(
        ({ connector, message_id }) => ({
          connector,
          message_id,
        }),
      );
      expect(reports).toEqual(sent.map((m) => ({ connector: m.connector, message_id: String(m.id) })));
    },
  );
});
