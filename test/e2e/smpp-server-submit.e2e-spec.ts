import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import smpp from 'smpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SmppListener } from '../../src/modules/smpp-server/smpp.listener.js';
import { freePort } from '../support/local-state.js';
import { BalanceService } from '../../src/modules/balance/balance.service.js';
import { CountriesService } from '../../src/modules/fraud/countries/countries.service.js';
import { CMD, connectNetSmppEsme, netSmppMissing, type NetSmppEsme } from '../support/net-smpp-esme.js';
import { createSmppTenant, startSmppServerApp, type SmppTenant } from '../support/smpp-server-app.js';
import type { TestApp } from '../support/test-app.js';

/**
 * submit_sm and data_sm from Net::SMPP through the one send pipeline: texts decoded by
 * data_coding, parts put back together, money as over HTTP, the decimal message_id usable in
 * GET /messages/{id}, and the refusals answered before anything is stored.
 */
const ESME_RINVMSGLEN = 0x01;
const ESME_RINVSRCADR = 0x0a;
const ESME_RINVDSTADR = 0x0b;
const ESME_RSUBMITFAIL = 0x45;

const hex = (b: Buffer) => b.toString('hex');
const ucs2 = (s: string) => Buffer.from(s, 'utf16le').swap16();

const missing = netSmppMissing();

describe.skipIf(missing)('SMPP server: submits', () => {
  let t: TestApp & { smppPort: number };
  let tenant: SmppTenant;
  let esme: NetSmppEsme;

  const balanceOf = async (accountId: string) =>
    Number((await t.app.get(BalanceService).channels(accountId)).find((c) => c.channel === 'sms')!.balance);
  const messageById = (id: string, key = tenant.key) =>
    t.http().get(`/api/v1/json/messages/${id}`).set('X-API-Key', key);
  const bodyOf = async (id: string) => {
    const [row] = (await t.ds.query(
      'SELECT COALESCE(m.body, r.body) AS body, m.units, m.cost, m.smpp_credential_id, m.smpp_registered_delivery FROM messages m JOIN send_requests r ON r.id = m.send_request_id WHERE m.id = ?',
      [id],
    )) as Array<{ body: string; units: number; cost: string; smpp_credential_id: number | null }>;
    return row;
  };

  const certDir = mkdtempSync(join(tmpdir(), 'smpp-tls-'));

  beforeAll(async () => {
    // A self-signed certificate for the TLS listener.
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-keyout',
        join(certDir, 'key.pem'),
        '-out',
        join(certDir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    t = await startSmppServerApp({
      SMPP_SERVER_TLS_PORT: String(await freePort()),
      SMPP_SERVER_TLS_CERT: join(certDir, 'cert.pem'),
      SMPP_SERVER_TLS_KEY: join(certDir, 'key.pem'),
    });
    tenant = await createSmppTenant(t, { balances: { sms: '100' }, prices: { sms: '0.5' } });
    esme = await connectNetSmppEsme(t.smppPort);
    expect((await esme.bind(tenant.systemId, tenant.smppPassword)).status).toBe(0);
  });
  afterAll(async () => {
    await esme?.close();
    await t?.close();
    rmSync(certDir, { recursive: true, force: true });
  });

  it('serves binds and submits over TLS on SMPP_SERVER_TLS_PORT', async () => {
    const port = t.app.get(SmppListener).ports().tls!;
    expect(port).toBeGreaterThan(0);
    // Net::SMPP speaks no TLS: the smpp package's client does, over a real TLS handshake.
    const session = smpp.connect({ host: '127.0.0.1', port, tls: true, rejectUnauthorized: false } as never);
    session.on('error', () => undefined);
    try {
      const call = (cmd: 'bind_transceiver' | 'submit_sm', params: smpp.PduParams) =>
        new Promise<smpp.PDU>((resolve) => session[cmd](params, (pdu) => resolve(pdu)));
      expect(
        (await call('bind_transceiver', { system_id: tenant.systemId, password: tenant.smppPassword }))
          .command_status,
      ).toBe(0);
      const r = await call('submit_sm', {
        source_addr: 'ACME',
        destination_addr: '260971000021',
        short_message: 'over tls',
      });
      expect(r.command_status).toBe(0);
      expect((await bodyOf(r.message_id!)).body).toBe('over tls');
    } finally {
      session.destroy();
    }
  });

  it('stores a GSM text as written, answers a decimal message_id GET /messages/{id} finds, and charges as HTTP does', async () => {
    const before = await balanceOf(tenant.account.id);
    // GSM 03.38 unpacked: '@' is 0x00, '{' and '}' are the escapes 0x1B 0x28 and 0x1B 0x29.
    const gsm = Buffer.concat([
      Buffer.from('Hello '),
      Buffer.from([0x00]),
      Buffer.from(' SMPP '),
      Buffer.from([0x1b, 0x28]),
      Buffer.from('ok'),
      Buffer.from([0x1b, 0x29]),
    ]);
    const resp = await esme.call(
      'submit_sm',
      { source_addr: 'ACME', destination_addr: '260971000010', data_coding: 0, registered_delivery: 0x11 },
      { short_message: hex(gsm) },
    );
    expect([resp.cmd, resp.status]).toEqual([CMD.submit_sm_resp, 0]);
    expect(resp.message_id).toMatch(/^\d{1,20}$/);
    const found = await messageById(resp.message_id!);
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({
      recipient: '260971000010',
      smpp_message_id: resp.message_id,
      units: 1,
    });
    expect(await bodyOf(resp.message_id!)).toMatchObject({
      body: 'Hello @ SMPP {ok}',
      smpp_credential_id: expect.any(Number),
      smpp_registered_delivery: 1,
    });

    // The same text over HTTP costs the same.
    const http = await t
      .http()
      .post('/api/v1/json/bulk/sms')
      .set('X-API-Key', tenant.key)
      .send({ from: 'ACME', to: '260971000011', message: 'Hello @ SMPP {ok}' });
    expect(http.status).toBe(200);
    expect(await bodyOf(resp.message_id!)).toMatchObject({ cost: '0.500000' });
    expect(await balanceOf(tenant.account.id)).toBeCloseTo(before - 1, 6);
  });

  it('decodes UCS-2 (data_coding 8) and Latin-1 (data_coding 3) texts', async () => {
    const text = 'Привет 👋';
    const u = await esme.call(
      'submit_sm',
      { source_addr: 'ACME', destination_addr: '260971000012', data_coding: 8 },
      { short_message: hex(ucs2(text)) },
    );
    expect(u.status).toBe(0);
    expect((await bodyOf(u.message_id!)).body).toBe(text);
    const l = await esme.call(
      'submit_sm',
      { source_addr: 'ACME', destination_addr: '260971000013', data_coding: 3 },
      { short_message: hex(Buffer.from('Café olé', 'latin1')) },
    );
    expect(l.status).toBe(0);
    expect((await bodyOf(l.message_id!)).body).toBe('Café olé');
  });

  it('takes the text of a data_sm from its message_payload', async () => {
    const d = await esme.call(
      'data_sm',
      { source_addr: 'ACME', destination_addr: '260971000014', data_coding: 0 },
      { message_payload: hex(Buffer.from('payload text')) },
    );
    expect([d.cmd, d.status]).toEqual([CMD.data_sm_resp, 0]);
    expect((await bodyOf(d.message_id!)).body).toBe('payload text');
  });

  it('stores a 3-part UDH text as one message once its last part is in, each part answered with its own id', async () => {
    const parts = ['First part, ', 'second part, ', 'third part.'];
    const ids: string[] = [];
    for (const [i, p] of parts.entries()) {
      const udh = Buffer.from([5, 0, 3, 0x42, 3, i + 1]);
      const r = await esme.call(
        'submit_sm',
        { source_addr: 'ACME', destination_addr: '260971000015', data_coding: 0, esm_class: 0x40 },
        { short_message: hex(Buffer.concat([udh, Buffer.from(p)])) },
      );
      expect(r.status).toBe(0);
      ids.push(r.message_id!);
    }
    expect(new Set(ids).size).toBe(3);
    const rows = (await t.ds.query(
      "SELECT m.id, COALESCE(m.body, r.body) AS body, m.units FROM messages m JOIN send_requests r ON r.id = m.send_request_id WHERE m.account_id = ? AND m.recipient = '260971000015'",
      [tenant.account.id],
    )) as Array<{ id: string; body: string; units: number }>;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.body).toBe(parts.join(''));
    const [segments] = (await t.ds.query(
      "SELECT COUNT(*) AS n FROM smpp_segments WHERE message_id = ? AND state = 'stored'",
      [rows[0]!.id],
    )) as Array<{ n: string }>;
    expect(Number(segments!.n)).toBe(3);
  });

  it('puts SAR-TLV parts back together whatever order they arrive in', async () => {
    const parts = ['alpha ', 'beta ', 'gamma'];
    for (const seq of [3, 1, 2]) {
      const r = await esme.call(
        'submit_sm',
        { source_addr: 'ACME', destination_addr: '260971000016', data_coding: 0 },
        {
          short_message: hex(Buffer.from(parts[seq - 1]!)),
          sar_msg_ref_num: '0102',
          sar_total_segments: '03',
          sar_segment_seqnum: seq.toString(16).padStart(2, '0'),
        },
      );
      expect(r.status).toBe(0);
    }
    const rows = (await t.ds.query(
      "SELECT COALESCE(m.body, r.body) AS body FROM messages m JOIN send_requests r ON r.id = m.send_request_id WHERE m.account_id = ? AND m.recipient = '260971000016'",
      [tenant.account.id],
    )) as Array<{ body: string }>;
    expect(rows.map((r) => r.body)).toEqual(['alpha beta gamma']);
  });

  it('refuses before storing: a bad number 0x0B, a bad sender 0x0A, more than 10 parts 0x01', async () => {
    expect((await esme.submitText('ACME', '12', 'x')).status).toBe(ESME_RINVDSTADR);
    expect((await esme.submitText('way too long sender', '260971000017', 'x')).status).toBe(ESME_RINVSRCADR);
    const r = await esme.call(
      'submit_sm',
      { source_addr: 'ACME', destination_addr: '260971000017', data_coding: 0, esm_class: 0x40 },
      { short_message: hex(Buffer.concat([Buffer.from([5, 0, 3, 9, 11, 1]), Buffer.from('x')])) },
    );
    expect(r.status).toBe(ESME_RINVMSGLEN);
    const [{ n }] = (await t.ds.query(
      "SELECT COUNT(*) AS n FROM messages WHERE account_id = ? AND recipient IN ('12', '260971000017')",
      [tenant.account.id],
    )) as Array<{ n: string }>;
    expect(Number(n)).toBe(0);
  });

  it('refuses with ESME_RSUBMITFAIL what the balance cannot pay, and stores nothing', async () => {
    const poor = await createSmppTenant(t, { balances: { sms: '0.1' }, prices: { sms: '0.5' } });
    const e = await connectNetSmppEsme(t.smppPort);
    try {
      expect((await e.bind(poor.systemId, poor.smppPassword)).status).toBe(0);
      expect((await e.submitText('ACME', '260971000018', 'no money')).status).toBe(ESME_RSUBMITFAIL);
      const [{ n }] = (await t.ds.query('SELECT COUNT(*) AS n FROM messages WHERE account_id = ?', [
        poor.account.id,
      ])) as Array<{ n: string }>;
      expect(Number(n)).toBe(0);
    } finally {
      await e.close();
    }
  }, 60_000);

  it('accepts with a message_id what HTTP stores REJECTED (a suppressed number), charging nothing', async () => {
    const add = await t
      .http()
      .post('/api/v1/json/suppressions')
      .set('X-API-Key', tenant.key)
      .send({ channel: 'sms', recipients: ['260971000019'] });
    expect([200, 201]).toContain(add.status);
    const r = await esme.submitText('ACME', '260971000019', 'suppressed');
    expect(r.status).toBe(0);
    const found = await messageById(r.message_id!);
    expect(found.body).toMatchObject({ status: 'REJECTED', units: 0 });
  });

  it('accepts and stores REJECTED a number outside the countries, or premium-rate, charging nothing', async () => {
    const other = await createSmppTenant(t, { balances: { sms: '10' }, prices: { sms: '0.5' } });
    await t.app.get(CountriesService).change(other.username, { mode: 'allow', countries: ['GB', 'ZM'] });
    const e = await connectNetSmppEsme(t.smppPort);
    try {
      expect((await e.bind(other.systemId, other.smppPassword)).status).toBe(0);
      for (const [to, reason] of [
        ['254712345678', 'COUNTRY_NOT_ALLOWED'],
        ['449098790123', 'PREMIUM_NUMBER'],
      ] as const) {
        const r = await e.submitText('ACME', to, 'refused');
        expect(r.status).toBe(0);
        expect((await messageById(r.message_id!, other.key)).body).toMatchObject({
          status: 'REJECTED',
          reason,
          units: 0,
        });
      }
      expect(await balanceOf(other.account.id)).toBe(10);
    } finally {
      await e.close();
    }
  });

  it('charges nothing for a test credential, whose messages a test key sees', async () => {
    const test = await createSmppTenant(t, {
      balances: { sms: '10' },
      prices: { sms: '0.5' },
      credential: { mode: 'test' },
    });
    const e = await connectNetSmppEsme(t.smppPort);
    try {
      expect((await e.bind(test.systemId, test.smppPassword)).status).toBe(0);
      const r = await e.submitText('ACME', '260971000020', 'test mode');
      expect(r.status).toBe(0);
      expect(await balanceOf(test.account.id)).toBe(10);
      const [row] = (await t.ds.query(
        'SELECT r.test_mode FROM messages m JOIN send_requests r ON r.id = m.send_request_id WHERE m.id = ?',
        [r.message_id],
      )) as Array<{ test_mode: number }>;
      expect(Number(row!.test_mode)).toBe(1);
    } finally {
      await e.close();
    }
  }, 60_000);
});
