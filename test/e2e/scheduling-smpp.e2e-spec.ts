import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { freePort } from '../support/local-state.js';
import { netSmppMissing, startNetSmppSmsc, type NetSmppSmsc } from '../support/net-smpp-smsc.js';
import { storedBalance } from '../support/account-probes.js';
import { endValidityInFlight } from '../support/clock.js';
import { requestMessages } from '../support/message-probes.js';
import { storeProblems } from '../support/store-invariants.js';
import { startSmppApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

const SMS = '/api/v1/json/bulk/sms';
const missing = netSmppMissing();
if (missing) console.warn(`\n!!! SKIPPING the Net::SMPP validity test: ${missing}\n`);

/** Seconds in SMPP's relative time form YYMMDDhhmmss000R (months and years unused here). */
function relativeSeconds(v: string): number {
  const m = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})000R$/.exec(v);
  if (!m) throw new Error(`not the relative form: ${JSON.stringify(v)}`);
  const [, yy, mo, dd, hh, mi, ss] = m.map(Number);
  expect([yy, mo]).toEqual([0, 0]);
  return ((dd * 24 + hh) * 60 + mi) * 60 + ss;
}

describe.skipIf(missing !== null)(
  'the remaining validity, as an independent SMSC (Net::SMPP) receives it',
  () => {
    let smsc: NetSmppSmsc;
    let t: TestApp;
    let tenant: Tenant;

    beforeAll(async () => {
      smsc = await startNetSmppSmsc();
      t = await startSmppApp(smsc.url, { SCHEDULE_POLL_MS: '100' });
      tenant = await createTenant(t, { balances: { sms: '100' }, prices: { sms: '0.01' } });
    });
    afterAll(async () => {
      await t?.close();
      await smsc?.close();
    });

    it('carries validity_period in the relative form: what is left of the request validity_period', async () => {
      const res = await t
        .http()
        .post(SMS)
        .set('X-API-Key', tenant.key)
        .send({ from: 'ACME', to: '260971110000', message: 'valid for an hour', validity_period: 3600 });
      expect(res.status).toBe(200);
      const submit = await waitFor(
        async () => smsc.submits.find((s) => s.destination === '260971110000'),
        20_000,
        'submit',
      );
      const left = relativeSeconds(submit.validity);
      expect(left).toBeLessThanOrEqual(3600);
      expect(left).toBeGreaterThan(3600 - 60);
    });

    it('counts a scheduled message validity from send_at, and the default (48 h) when none is given', async () => {
      const sendAt = new Date(Date.now() + 6000).toISOString();
      await t
        .http()
        .post(SMS)
        .set('X-API-Key', tenant.key)
        .send({
          from: 'ACME',
          to: '260971110010',
          message: 'scheduled',
          send_at: sendAt,
          validity_period: 600,
        })
        .expect(200);
      await t
        .http()
        .post(SMS)
        .set('X-API-Key', tenant.key)
        .send({ from: 'ACME', to: '260971110020', message: 'default' })
        .expect(200);
      const scheduled = await waitFor(
        async () => smsc.submits.find((s) => s.destination === '260971110010'),
        30_000,
        'scheduled submit',
      );
      const plain = await waitFor(
        async () => smsc.submits.find((s) => s.destination === '260971110020'),
        20_000,
        'plain submit',
      );
      // Handed over within seconds of send_at: nearly all of the 600 s are left.
      expect(relativeSeconds(scheduled.validity)).toBeGreaterThan(600 - 60);
      expect(relativeSeconds(scheduled.validity)).toBeLessThanOrEqual(600);
      expect(plain.validity).toMatch(/^000002000000000R$|^0000015959\d{2}000R$/);
    }, 60_000);
  },
);

describe('validity that elapses while hand-over attempts are still being retried', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    // An SMSC that is not there: every attempt fails and is retried on the backoff schedule.
    const port = await freePort();
    t = await startSmppApp(`smpp://test:secret@127.0.0.1:${port}`, { SWEEP_INTERVAL_MS: '300' });
    tenant = await createTenant(t, { balances: { sms: '10' }, prices: { sms: '0.5' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('ends the message EXPIRED, VALIDITY_PERIOD_ELAPSED (not FAILED), refunded exactly once', async () => {
    const res = await t
      .http()
      .post(SMS)
      .set('X-API-Key', tenant.key)
      .send({
        from: 'ACME',
        to: ['260971120001', '260971120002'],
        message: 'never reaches anyone',
        validity_period: 60,
      });
    const ref = res.body.api_reference;
    await waitFor(
      async () => {
        const rows = await requestMessages(t, ref, 'attempts');
        return rows.every((r) => r.attempts > 0);
      },
      20_000,
      'a failed attempt each',
    );
    // The minute passes (moved rather than waited for).
    await endValidityInFlight(t, ref);
    await waitFor(
      async () => {
        const rows = await requestMessages(t, ref, 'status', 'reason');
        return rows.every((r) => r.status === 'EXPIRED') ? rows : null;
      },
      20_000,
      'EXPIRED',
    ).then((rows) =>
      expect(rows.map((r) => r.reason)).toEqual(['VALIDITY_PERIOD_ELAPSED', 'VALIDITY_PERIOD_ELAPSED']),
    );
    expect(Number(await storedBalance(t, tenant.account.id, 'sms'))).toBe(10);
    expect(await storeProblems(t)).toEqual([]);
  }, 60_000);
});
