import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountsService } from '../../src/modules/accounts/accounts.service.js';
import { BalanceService } from '../../src/modules/balance/balance.service.js';
import { SmppCredentialsService } from '../../src/modules/smpp-server/credentials/smpp-credentials.service.js';
import { CMD, connectNetSmppEsme, netSmppMissing, type NetSmppEsme } from '../support/net-smpp-esme.js';
import { createSmppTenant, startSmppServerApp, type SmppTenant } from '../support/smpp-server-app.js';
import type { TestApp } from '../support/test-app.js';

/**
 * The SMPP server's binds and session rules, driven by Net::SMPP (Debian's libnet-smpp-perl), an
 * ESME that shares no code with the `smpp` library the server parses PDUs with.
 */
const ESME_RINVBNDSTS = 0x04;
const ESME_RALYBND = 0x05;
const ESME_RBINDFAIL = 0x0d;
const ESME_RINVPASWD = 0x0e;
const ESME_RINVSYSID = 0x0f;
const ESME_RSUBMITFAIL = 0x45;
const ESME_RTHROTTLED = 0x58;

const missing = netSmppMissing();

describe.skipIf(missing)('SMPP server: binds and sessions', () => {
  let t: TestApp & { smppPort: number };
  let tenant: SmppTenant;
  const open: NetSmppEsme[] = [];
  const connect = async () => {
    const e = await connectNetSmppEsme(t.smppPort);
    open.push(e);
    return e;
  };

  beforeAll(async () => {
    t = await startSmppServerApp({ SMPP_SERVER_WINDOW: '100', SMPP_SERVER_IDLE_SECONDS: '120' });
    tenant = await createSmppTenant(t, { credential: { maxBinds: 2, tps: 1000 } });
  });
  afterAll(async () => {
    await Promise.all(open.map((e) => e.close()));
    await t?.close();
  });

  it('binds as transceiver, transmitter and receiver with the right password', async () => {
    for (const type of ['transceiver', 'transmitter'] as const) {
      const e = await connect();
      const resp = await e.bind(tenant.systemId, tenant.smppPassword, type);
      expect(resp.status).toBe(0);
      expect(resp.cmd).toBe(type === 'transceiver' ? CMD.bind_transceiver_resp : CMD.bind_transmitter_resp);
      await e.close();
    }
  });

  it('refuses a wrong password with ESME_RINVPASWD and an unknown system_id with ESME_RINVSYSID', async () => {
    const other = await createSmppTenant(t);
    const e1 = await connect();
    expect((await e1.bind(other.systemId, 'wrongpwd')).status).toBe(ESME_RINVPASWD);
    const e2 = await connect();
    expect((await e2.bind('nosuchsystem', 'whatever')).status).toBe(ESME_RINVSYSID);
  });

  it('refuses with ESME_RBINDFAIL an address outside the allow list, a suspended account and a revoked credential', async () => {
    const fenced = await createSmppTenant(t, { credential: { allowedIps: ['10.1.2.0/24'] } });
    expect((await (await connect()).bind(fenced.systemId, fenced.smppPassword)).status).toBe(ESME_RBINDFAIL);

    const suspended = await createSmppTenant(t);
    await t.app.get(AccountsService).setStatus(suspended.username, 'suspended');
    expect((await (await connect()).bind(suspended.systemId, suspended.smppPassword)).status).toBe(
      ESME_RBINDFAIL,
    );

    const revoked = await createSmppTenant(t);
    await t.app.get(SmppCredentialsService).revoke(revoked.systemId);
    expect((await (await connect()).bind(revoked.systemId, revoked.smppPassword)).status).toBe(
      ESME_RBINDFAIL,
    );
  }, 90_000);

  it('refuses a bind beyond the max binds with ESME_RBINDFAIL, and takes one again once a bind is gone', async () => {
    const capped = await createSmppTenant(t, { credential: { maxBinds: 2 } });
    const a = await connect();
    const b = await connect();
    expect((await a.bind(capped.systemId, capped.smppPassword)).status).toBe(0);
    expect((await b.bind(capped.systemId, capped.smppPassword, 'receiver')).status).toBe(0);
    expect((await (await connect()).bind(capped.systemId, capped.smppPassword)).status).toBe(ESME_RBINDFAIL);
    expect((await a.call('unbind')).cmd).toBe(CMD.unbind_resp);
    expect((await (await connect()).bind(capped.systemId, capped.smppPassword)).status).toBe(0);
  }, 60_000);

  it('locks one system_id from one address after 5 failed binds, and not that address for another system_id', async () => {
    const victim = await createSmppTenant(t);
    const bystander = await createSmppTenant(t);
    for (let i = 0; i < 5; i++)
      expect((await (await connect()).bind(victim.systemId, 'guess000')).status).toBe(ESME_RINVPASWD);
    // The right password is refused now: the pair is locked.
    expect((await (await connect()).bind(victim.systemId, victim.smppPassword)).status).toBe(ESME_RBINDFAIL);
    expect((await (await connect()).bind(bystander.systemId, bystander.smppPassword)).status).toBe(0);
  }, 120_000);

  it('refuses the next submit of a bind whose account was suspended since, with ESME_RSUBMITFAIL, and unbinds it', async () => {
    const later = await createSmppTenant(t);
    const e = await connect();
    expect((await e.bind(later.systemId, later.smppPassword)).status).toBe(0);
    expect((await e.submitText('ACME', '260971000001', 'before')).status).toBe(0);
    await t.app.get(AccountsService).setStatus(later.username, 'suspended');
    // A bind reads its sender's standing again at most every 5 s.
    await new Promise((r) => setTimeout(r, 5_500));
    expect((await e.submitText('ACME', '260971000001', 'after')).status).toBe(ESME_RSUBMITFAIL);
    const [{ n }] = (await t.ds.query('SELECT COUNT(*) AS n FROM messages WHERE account_id = ?', [
      later.account.id,
    ])) as Array<{ n: string }>;
    expect(Number(n)).toBe(1);
    // Then the server unbinds it.
    const { pdus } = await e.read(1);
    expect(pdus[0]?.cmd).toBe(CMD.unbind);
  }, 60_000);

  it('answers any PDU but a bind or enquire_link before a bind with ESME_RINVBNDSTS, and enquire_link at once', async () => {
    const e = await connect();
    const submit = await e.submitText('ACME', '260971000001', 'too early');
    expect([submit.cmd, submit.status]).toEqual([CMD.submit_sm_resp, ESME_RINVBNDSTS]);
    const enquire = await e.call('enquire_link');
    expect([enquire.cmd, enquire.status]).toEqual([CMD.enquire_link_resp, 0]);
    expect((await e.bind(tenant.systemId, tenant.smppPassword)).status).toBe(0);
    expect((await e.bind(tenant.systemId, tenant.smppPassword)).status).toBe(ESME_RALYBND);
    const bound = await e.call('enquire_link');
    expect([bound.cmd, bound.status]).toEqual([CMD.enquire_link_resp, 0]);
    await e.close();
  });

  it('answers all of 150 pipelined submits with a window of 100, none refused', async () => {
    const e = await connect();
    expect((await e.bind(tenant.systemId, tenant.smppPassword)).status).toBe(0);
    await e.send(
      'submit_sm',
      { source_addr: 'ACME', destination_addr: '260971000002', data_coding: 0 },
      { short_message: Buffer.from('pipelined').toString('hex') },
      150,
    );
    const { pdus } = await e.read(150);
    expect(pdus).toHaveLength(150);
    expect(pdus.filter((p) => p.cmd === CMD.submit_sm_resp && p.status === 0)).toHaveLength(150);
    expect(new Set(pdus.map((p) => p.message_id)).size).toBe(150);
    await e.close();
  });

  it('throttles submits beyond the TPS with ESME_RTHROTTLED and charges nothing for them', async () => {
    const slow = await createSmppTenant(t, {
      balances: { sms: '1000' },
      prices: { sms: '1' },
      credential: { tps: 1 },
    });
    const e = await connect();
    expect((await e.bind(slow.systemId, slow.smppPassword)).status).toBe(0);
    // The burst is the window (100): 130 at once overflow it.
    await e.send(
      'submit_sm',
      { source_addr: 'ACME', destination_addr: '260971000003', data_coding: 0 },
      { short_message: Buffer.from('burst').toString('hex') },
      130,
    );
    const { pdus } = await e.read(130);
    const ok = pdus.filter((p) => p.status === 0).length;
    const throttled = pdus.filter((p) => p.status === ESME_RTHROTTLED).length;
    expect(ok + throttled).toBe(130);
    expect(throttled).toBeGreaterThan(0);
    const [{ n }] = (await t.ds.query('SELECT COUNT(*) AS n FROM messages WHERE account_id = ?', [
      slow.account.id,
    ])) as Array<{ n: string }>;
    expect(Number(n)).toBe(ok);
    const sms = (await t.app.get(BalanceService).channels(slow.account.id)).find((c) => c.channel === 'sms');
    expect(Number(sms!.balance)).toBe(1000 - ok);
    const metrics = (await t.http().get('/metrics')).text;
    expect(metrics).toContain(`bulk_smpp_submits_total{outcome="throttled"} ${throttled}`);
    expect(
      Number(/bulk_smpp_submits_total\{outcome="accepted"\} (\d+)/.exec(metrics)?.[1]),
    ).toBeGreaterThanOrEqual(ok);
    await e.close();
  });
});
