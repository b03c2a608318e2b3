import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryReportService } from '../../src/modules/delivery/delivery-report.service.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { netSmppMissing, startNetSmppSmsc, type NetSmppSmsc } from '../support/net-smpp-smsc.js';
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
    const read = async () =>
      (await t.ds.query('SELECT recipient, status, reason FROM messages WHERE send_request_id = ?', [
        ref,
      ])) as Array<{
        recipient: string;
        status: string;
        reason: string | null;
      }>;
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
    const stored = (await t.ds.query(
      'SELECT provider_message_id FROM message_parts ORDER BY provider_message_id',
    )) as Array<{ provider_message_id: string }>;
    expect(stored.map((p) => p.provider_message_id)).toEqual(
      expect.arrayContaining(smsc.submits.map((s) => s.id)),
    );
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
      const [{ id }] = (await t.ds.query('SELECT id FROM messages WHERE recipient LIKE ?', [
        `%${n}`,
      ])) as Array<{ id: string }>;
      const parts = (await t.ds.query(
        'SELECT part, provider_message_id, status FROM message_parts WHERE message_id = ? ORDER BY part',
        [id],
      )) as Array<{
        part: number;
        provider_message_id: string;
        status: string;
      }>;
      expect(parts.map((p) => p.provider_message_id).sort()).toEqual(sent.map((s) => s.id).sort());
      expect(parts.map((p) => p.status).sort()).toEqual(
        n === firstPartLost ? ['DELIVERED', 'UNDELIVERED'] : ['DELIVERED', 'DELIVERED'],
      );
    }
  });

  it('applies a receipt stored before SENT that the early pass never applied (its worker stopped between the two)', async () => {
    const states = await send(['260977000030'], 'a receipt left stranded');
    expect(states.get('260977000030')?.status).toBe('DELIVERED');
    const [{ id }] = (await t.ds.query('SELECT id FROM messages WHERE recipient LIKE ?', [
      '%260977000030',
    ])) as Array<{ id: string }>;
    // The state a stop between recording SENT and applying the early receipt leaves behind.
    await t.ds.query("UPDATE messages SET status = 'SENT', completed_at = NULL WHERE id = ?", [id]);
    await t.ds.query(
      'UPDATE message_parts SET status = NULL, reason = NULL, reported_at = NULL WHERE message_id = ?',
      [id],
    );
    const [{ provider_message_id: providerId }] = (await t.ds.query(
      'SELECT provider_message_id FROM message_parts WHERE message_id = ?',
      [id],
    )) as Array<{ provider_message_id: string }>;
    await t.ds.query(
      `UPDATE ${t.name}_notification.delivery_reports SET applied_at = NULL, message_id = NULL,
         received_at = CURRENT_TIMESTAMP(3) - INTERVAL 10 SECOND WHERE message_id = ? OR provider_message_id = ?`,
      [id, providerId],
    );
    await t.app.get(DeliveryReportService).applyStranded();
    const [after] = (await t.ds.query('SELECT status FROM messages WHERE id = ?', [id])) as Array<{
      status: string;
    }>;
    expect(after.status).toBe('DELIVERED');
    const unapplied = (await t.ds.query(
      `SELECT COUNT(*) AS n FROM ${t.name}_notification.delivery_reports WHERE message_id <=> ? AND applied_at IS NULL`,
      [id],
    )) as Array<{ n: number | string }>;
    expect(Number(unapplied[0].n)).toBe(0);
  });

  it('keeps a receipt that matches nothing, counts it, then expires it', async () => {
    const states = await send(['260977000016'], 'and one stray receipt');
    expect(states.get('260977000016')?.status).toBe('DELIVERED');
    const stray = async () =>
      (await t.ds.query(
        `SELECT applied_at, expired_at FROM ${t.name}_notification.delivery_reports WHERE provider_message_id = '999999999'`,
      )) as Array<{
        applied_at: Date | null;
        expired_at: Date | null;
      }>;
    await waitFor(async () => (await stray()).length === 1, 5000, 'the stray receipt stored');
    expect(await stray()).toEqual([{ applied_at: null, expired_at: null }]);
    const metrics = await t.http().get('/metrics').set('Authorization', `Bearer ${METRICS}`);
    expect(metrics.text).toMatch(/bulk_receipts_unmatched_total\{transport="smpp"\} [1-9]/);
    await new Promise((r) => setTimeout(r, 1100));
    expect(await t.app.get(DeliveryReportService).expireUnmatched()).toBeGreaterThanOrEqual(1);
    expect((await stray())[0].expired_at).toBeInstanceOf(Date);
  });
});
