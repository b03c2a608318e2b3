import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNetSmppEsme, netSmppMissing, type NetSmppEsme } from '../support/net-smpp-esme.js';
import { createSmppTenant, startSmppServerApp, type SmppTenant } from '../support/smpp-server-app.js';
import type { TestApp } from '../support/test-app.js';

/**
 * submit_sm's schedule_delivery_time and validity_period, from Net::SMPP, as a send's send_at and
 * validity: both SMPP time forms, and the refusals 0x61 and 0x62 before anything is stored.
 */
const ESME_RINVSCHED = 0x61;
const ESME_RINVEXPIRY = 0x62;
const HOUR = 3_600_000;

/** SMPP's absolute form of `at` as local time `quarters` quarter hours ahead of UTC (0–48). */
function absolute(at: Date, quarters: number): string {
  const local = new Date(at.getTime() + quarters * 15 * 60_000);
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    two(local.getUTCFullYear() % 100) +
    two(local.getUTCMonth() + 1) +
    two(local.getUTCDate()) +
    two(local.getUTCHours()) +
    two(local.getUTCMinutes()) +
    two(local.getUTCSeconds()) +
    '0' +
    two(quarters) +
    '+'
  );
}

const missing = netSmppMissing();

describe.skipIf(missing)('SMPP server: schedule_delivery_time and validity_period', () => {
  let t: TestApp & { smppPort: number };
  let tenant: SmppTenant;
  let esme: NetSmppEsme;

  const stored = async (id: string) => {
    const [row] = (await t.ds.query(
      `SELECT m.status, r.send_at, r.validity_period, r.valid_until
         FROM messages m JOIN send_requests r ON r.id = m.send_request_id WHERE m.id = ?`,
      [id],
    )) as Array<{ status: string; send_at: Date | null; validity_period: number; valid_until: Date }>;
    return row;
  };
  const near = (d: Date | null, ms: number, within = 5000) =>
    expect(Math.abs(d!.getTime() - ms)).toBeLessThan(within);

  beforeAll(async () => {
    t = await startSmppServerApp();
    tenant = await createSmppTenant(t, { balances: { sms: '100' } });
    esme = await connectNetSmppEsme(t.smppPort);
    expect((await esme.bind(tenant.systemId, tenant.smppPassword)).status).toBe(0);
  });
  afterAll(async () => {
    await esme?.close();
    await t?.close();
  });

  it('schedules a relative schedule_delivery_time, the validity counted from it', async () => {
    const sent = Date.now();
    const resp = await esme.submitText('ACME', '260971300001', 'later', {
      schedule_delivery_time: '000000010000000R',
      validity_period: '000000030000000R',
    });
    expect(resp.status).toBe(0);
    const row = await stored(resp.message_id!);
    expect(row.status).toBe('SCHEDULED');
    near(row.send_at, sent + HOUR);
    expect(row.validity_period).toBeGreaterThanOrEqual(7199);
    expect(row.validity_period).toBeLessThanOrEqual(7201);
    near(row.valid_until, sent + 3 * HOUR);
  });

  it('reads the absolute form by its offset from UTC; a validity alone sends at once', async () => {
    const at = new Date(Date.now() + 2 * HOUR);
    const scheduled = await esme.submitText('ACME', '260971300002', 'at two', {
      schedule_delivery_time: absolute(at, 8),
    });
    expect(scheduled.status).toBe(0);
    const row = await stored(scheduled.message_id!);
    expect(row.status).toBe('SCHEDULED');
    near(row.send_at, at.getTime(), 1000);

    const expiry = new Date(Date.now() + HOUR);
    const now = await esme.submitText('ACME', '260971300003', 'valid an hour', {
      validity_period: absolute(expiry, 0),
    });
    expect(now.status).toBe(0);
    const sentNow = await stored(now.message_id!);
    expect(sentNow.send_at).toBeNull();
    expect(sentNow.status).not.toBe('SCHEDULED');
    near(sentNow.valid_until, expiry.getTime(), 2000);
  });

  it('sends a text that came in parts with the times of the part that came first', async () => {
    const sent = Date.now();
    for (const [i, text] of ['First half, ', 'second half.'].entries()) {
      const udh = Buffer.from([5, 0, 3, 0x51, 2, i + 1]);
      const r = await esme.call(
        'submit_sm',
        {
          source_addr: 'ACME',
          destination_addr: '260971300004',
          data_coding: 0,
          esm_class: 0x40,
          schedule_delivery_time: '000000010000000R',
          validity_period: '000000020000000R',
        },
        { short_message: Buffer.concat([udh, Buffer.from(text)]).toString('hex') },
      );
      expect(r.status).toBe(0);
    }
    const [{ id }] = (await t.ds.query(
      "SELECT id FROM messages WHERE account_id = ? AND recipient = '260971300004'",
      [tenant.account.id],
    )) as Array<{ id: string }>;
    const row = await stored(String(id));
    expect(row.status).toBe('SCHEDULED');
    near(row.send_at, sent + HOUR);
    near(row.valid_until, sent + 2 * HOUR);
  });

  it('refuses a bad or too distant schedule with 0x61 and a bad, spent or too short validity with 0x62, storing nothing', async () => {
    const cases: Array<[Record<string, string>, number]> = [
      [{ schedule_delivery_time: 'tomorrow please' }, ESME_RINVSCHED],
      [{ schedule_delivery_time: '261332250000000+' }, ESME_RINVSCHED],
      [{ schedule_delivery_time: '000040000000000R' }, ESME_RINVSCHED],
      [{ validity_period: '0000000100000001' }, ESME_RINVEXPIRY],
      [{ validity_period: absolute(new Date(Date.now() - HOUR), 0) }, ESME_RINVEXPIRY],
      [{ validity_period: '000000000030000R' }, ESME_RINVEXPIRY],
      [{ schedule_delivery_time: '000000020000000R', validity_period: '000000010000000R' }, ESME_RINVEXPIRY],
    ];
    for (const [params, status] of cases)
      expect(
        (await esme.submitText('ACME', '260971300009', 'refused', params)).status,
        JSON.stringify(params),
      ).toBe(status);
    const [{ n }] = (await t.ds.query(
      "SELECT COUNT(*) AS n FROM messages WHERE account_id = ? AND recipient = '260971300009'",
      [tenant.account.id],
    )) as Array<{ n: string }>;
    expect(Number(n)).toBe(0);
  });
});
