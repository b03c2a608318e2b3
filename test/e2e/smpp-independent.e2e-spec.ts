import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryReportService } from '../../src/modules/delivery/receipts/delivery-report.service.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { eventsOfRequests, messageFields, requestMessages } from '../support/message-probes.js';
import { netSmppMissing, startNetSmppSmsc, type NetSmppSmsc } from '../support/net-smpp-smsc.js';
import {
  deliveryReports,
  partsOf,
  storedProviderIds,
  strandReceipt,
  unappliedReportsOf,
} from '../support/receipt-probes.js';
import { startSmppApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

/**
 * Against an SMSC that shares no code with our client (Net::SMPP, Debian's libnet-smpp-perl, in
 * its server role; see test/support/net-smpp-smsc.pl). It answers submit_sm with hexadecimal ids
 * and writes receipts in the forms real SMSCs use: decimal, zero-padded, TLVs only, text only,
 * one per part, and before the submit_sm_resp. The destination's last digit picks the form.
 */

const missing = netSmppMissing();
if (missing) console.warn(`\n!!! SKIPPING the Net::SMPP SMSC tests: ${missing}\n`);

const SMS = '/api/v1/json/bulk/sms';
const METRICS = 'metrics-token-0123456789abcdef';
const LONG = 'Multipart over an independent SMSC. '.repeat(6).trim(); // 215 GSM septets: 2 parts

describe.skipIf(missing !== null)('SMPP against an independent SMSC (Net::SMPP)', () => {
  let smsc: NetSmppSmsc;
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    smsc = await startNetSmppSmsc();
    t = await startSmppApp(smsc.url, { SMPP_UNMATCHED_RECEIPT_TTL_MS: '1000', METRICS_TOKEN: METRICS });
    tenant = await createTenant(t, { balances: { sms: '1000' }, prices: { sms: '0.01' } });
  });
  afterAll(async () => {
    await t?.close();
    await smsc?.close();
  });

  async function send(
    to: string[],
    message: string,
  ): Promise<Map<string, { status: string; reason: string | null }>> {
    const res = await t.http().post(SMS).set('X-API-Key', tenant.key).send({ from: 'ACME', to, message });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const ref = res.body.api_reference;
    const read = () => requestMessages(t, ref, 'recipient', 'status', 'reason');
    await waitFor(
      async () => (await read()).every((m) => !['ACKNOWLEDGED', 'SENT'].includes(m.status)),
      20_000,
      'every message final',
    ).catch(() => undefined);
    return new Map(
      (await read()).map((m) => [m.recipient.replace(/^\+/, ''), { status: m.status, reason: m.reason }]),
    );
  }

  it('matches receipts written in decimal, zero-padded, TLV-only, text-only and ahead of submit_sm_resp: each message DELIVERED, sent once', async () => {
    const to = ['260977000010', '260977000011', '260977000012', '260977000013', '260977000014'];
    const states = await send(to, 'hello from the other side');
    expect(Object.fromEntries(states)).toEqual(
      Object.fromEntries(to.map((n) => [n, { status: 'DELIVERED', reason: null }])),
    );
    for (const n of to) expect(smsc.submits.filter((s) => s.destination === n)).toHaveLength(1);
    expect(smsc.receiptResponses.filter((s) => s !== 0)).toEqual([]);
    expect(await storedProviderIds(t)).toEqual(expect.arrayContaining(smsc.submits.map((s) => s.id)));
  });

  it('stores one provider id per part; a multipart message is DELIVERED only when every part is, else takes the worst part', async () => {
    const allDelivered = ['260977000020', '260977000024'];
    const firstPartLost = '260977000025';
    const states = await send([...allDelivered, firstPartLost], LONG);
    for (const n of allDelivered) expect(states.get(n)).toEqual({ status: 'DELIVERED', reason: null });
    expect(states.get(firstPartLost)).toEqual({ status: 'UNDELIVERED', reason: 'UNDELIV err:001' });
    for (const n of [...allDelivered, firstPartLost]) {
      const sent = smsc.submits.filter((s) => s.destination === n);
      expect(sent.map((s) => `${s.seq}/${s.total}`).sort()).toEqual(['1/2', '2/2']);
      const { id } = await messageFields(t, { recipientEndingWith: n }, 'id');
      const parts = await partsOf(t, id);
      expect(parts.map((p) => p.provider_message_id).sort()).toEqual(sent.map((s) => s.id).sort());
      expect(parts.map((p) => p.status).sort()).toEqual(
        n === firstPartLost ? ['DELIVERED', 'UNDELIVERED'] : ['DELIVERED', 'DELIVERED'],
      );
    }
  });

  it('takes the first of a receipt resent twice (the last as UNDELIV), with receipts applied two batches at a time: 200 DELIVERED, one DELIVERED event each', async () => {
    const to = Array.from({ length: 200 }, (_, i) => `2609771${String(i).padStart(4, '0')}8`);
    const receiptsBefore = smsc.receiptResponses.length;
    const res = await t
      .http()
      .post(SMS)
      .set('X-API-Key', tenant.key)
      .send({ from: 'ACME', to, message: 'resent' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const ref = String(res.body.api_reference);
    await waitFor(
      async () => smsc.receiptResponses.length >= receiptsBefore + 600,
      20_000,
      '600 receipts answered',
    );
    let statuses = '';
    await waitFor(
      async () => {
        const all = await requestMessages(t, ref, 'status');
        const counts = new Map<string, number>();
        for (const m of all) counts.set(m.status, (counts.get(m.status) ?? 0) + 1);
        statuses = [...counts].map(([s, n]) => `${n} ${s}`).join(', ');
        return all.every((m) => m.status === 'DELIVERED');
      },
      20_000,
      'every message DELIVERED',
    ).catch((err: Error) => {
      throw new Error(`${err.message} (last seen: ${statuses})`);
    });
    expect(smsc.receiptResponses.slice(receiptsBefore).filter((s) => s !== 0)).toEqual([]);
    await sleep(500); // a resend applied late would show as a second event
    const events = await eventsOfRequests(t, [ref]);
    expect(events.filter((e) => e.status === 'DELIVERED')).toHaveLength(200);
    expect(new Set(events.filter((e) => e.status === 'DELIVERED').map((e) => e.messageId)).size).toBe(200);
    expect(events.filter((e) => e.status === 'UNDELIVERED')).toHaveLength(0);
    expect((await requestMessages(t, ref, 'status')).map((m) => m.status)).toEqual(
      Array(200).fill('DELIVERED'),
    );
  });

  it('applies a receipt stored before SENT that the early pass never applied (its worker stopped between the two)', async () => {
    const states = await send(['260977000030'], 'a receipt left stranded');
    expect(states.get('260977000030')?.status).toBe('DELIVERED');
    const { id } = await messageFields(t, { recipientEndingWith: '260977000030' }, 'id');
    await strandReceipt(t, id);
    await t.app.get(DeliveryReportService).applyStranded();
    expect((await messageFields(t, { id }, 'status')).status).toBe('DELIVERED');
    expect(await unappliedReportsOf(t, id)).toBe(0);
  });

  it('keeps a receipt that matches nothing, counts it, then expires it', async () => {
    const states = await send(['260977000016'], 'and one stray receipt');
    expect(states.get('260977000016')?.status).toBe('DELIVERED');
    const stray = async () =>
      (await deliveryReports(t, { providerMessageId: '999999999' })).map((r) => ({
        applied_at: r.applied_at,
        expired_at: r.expired_at,
      }));
    await waitFor(async () => (await stray()).length === 1, 5000, 'the stray receipt stored');
    expect(await stray()).toEqual([{ applied_at: null, expired_at: null }]);
    const metrics = await t.http().get('/metrics').set('Authorization', `Bearer ${METRICS}`);
    expect(metrics.text).toMatch(/bulk_receipts_unmatched_total\{transport="smpp"\} [1-9]/);
    await new Promise((r) => setTimeout(r, 1100));
    expect(await t.app.get(DeliveryReportService).expireUnmatched()).toBeGreaterThanOrEqual(1);
    expect((await stray())[0].expired_at).toBeInstanceOf(Date);
  });
});
