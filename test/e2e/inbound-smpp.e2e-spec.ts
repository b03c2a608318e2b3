import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InboundNumberStore } from '../../src/modules/inbound/inbound-number.store.js';
import { createTenant, type Tenant } from '../factories/account.factory.js';
import { netSmppMissing, startNetSmppSmsc, type NetSmppSmsc } from '../support/net-smpp-smsc.js';
import { startSmppPeer, type SmppPeer } from '../support/smpp-peer.js';
import { startSmppApp, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

/**
 * Inbound SMS from a real SMSC: deliver_sm that are not receipts, decoded (GSM 03.38, UCS-2,
 * Latin-1), concatenated parts reassembled whatever order they arrive in, stored with
 * in_reply_to, and STOP applied. Against our own peer (node smpp) and against Net::SMPP, which
 * shares no code with our client and builds its PDUs itself.
 */

const NUMBER = '260950000001';
const METRICS = 'metrics-token-0123456789abcdef';

async function inboundTexts(t: TestApp, tenant: Tenant): Promise<Array<Record<string, unknown>>> {
  const res = await t.http().get('/api/v1/json/inbound?limit=1000').set('X-API-Key', tenant.key);
  expect(res.status).toBe(200);
  return res.body.data;
}

describe('inbound SMS over SMPP from our peer', () => {
  let smsc: SmppPeer;
  let t: TestApp;
  let tenant: Tenant;
  const HANDSET = '260961000001';

  beforeAll(async () => {
    smsc = await startSmppPeer({ autoReceipt: 'DELIVRD', receiptDelayMs: 20 });
    t = await startSmppApp(smsc.url, { METRICS_TOKEN: METRICS });
    tenant = await createTenant(t, { prices: { sms: '1' } });
    await t.app.get(InboundNumberStore).add(tenant.account.id, NUMBER, '');
    // Binds when a worker starts; the first send also waits for the bind.
    await waitFor(async () => smsc.boundSessions() > 0, 15_000, 'the bind');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await smsc?.close();
  });

  it('acknowledges and stores GSM 03.38, UCS-2 and Latin-1 texts as written', async () => {
    expect(await smsc.sendMo(HANDSET, NUMBER, 'Hi @home £5 {ok}')).toBe(0);
    expect(await smsc.sendMo(HANDSET, NUMBER, 'Привет 👋', { data_coding: 8 })).toBe(0);
    expect(await smsc.sendMo(HANDSET, NUMBER, 'Café olé', { data_coding: 3 })).toBe(0);
    const texts = (await inboundTexts(t, tenant)).map((m) => m.text);
    expect(texts).toEqual(['Hi @home £5 {ok}', 'Привет 👋', 'Café olé']);
  });

  it('reassembles concatenated parts arriving in any order, including an emoji split between UCS-2 parts', async () => {
    const udh = (ref: number, total: number, seq: number) => Buffer.from([5, 0, 3, ref, total, seq]);
    const parts = ['one, ', 'two, ', 'three.'];
    for (const seq of [2, 3, 1])
      expect(
        await smsc.sendMo(HANDSET, NUMBER, '', {
          short_message: { udh: udh(7, 3, seq), message: parts[seq - 1] },
        }),
      ).toBe(0);
    const ucs = Buffer.from('Smile 😀 now', 'utf16le').swap16();
    const cut = 2 * 7; // "Smile " and the high surrogate
    const udh16 = (seq: number) => Buffer.from([6, 8, 4, 0x12, 0x34, 2, seq]);
    expect(
      await smsc.sendMo(HANDSET, NUMBER, '', {
        data_coding: 8,
        short_message: { udh: udh16(2), message: ucs.subarray(cut) },
      }),
    ).toBe(0);
    expect(
      await smsc.sendMo(HANDSET, NUMBER, '', {
        data_coding: 8,
        short_message: { udh: udh16(1), message: ucs.subarray(0, cut) },
      }),
    ).toBe(0);
    const texts = (await inboundTexts(t, tenant)).map((m) => m.text);
    expect(texts.slice(-2)).toEqual(['one, two, three.', 'Smile 😀 now']);
  });

  it('answers a reply to a sent message with in_reply_to, and a STOP suppresses the handset', async () => {
    const sent = await t
      .http()
      .post('/api/v1/json/bulk/sms')
      .set('X-API-Key', tenant.key)
      .send({ from: NUMBER, to: [HANDSET], message: 'Offer!' });
    const messageId = sent.body.data[0].message_id;
    await waitFor(async () => smsc.countByDestination(HANDSET) > 0, 15_000, 'the submit_sm');
    expect(await smsc.sendMo(HANDSET, NUMBER, 'stop')).toBe(0);
    const last = (await inboundTexts(t, tenant)).at(-1);
    expect(last).toMatchObject({
      text: 'stop',
      keyword: 'STOP',
      in_reply_to: messageId,
      from: HANDSET,
      to: NUMBER,
    });
    const again = await t
      .http()
      .post('/api/v1/json/bulk/sms')
      .set('X-API-Key', tenant.key)
      .send({ from: NUMBER, to: [HANDSET, '260961000002'], message: 'Offer!' });
    expect(again.body.data[0]).toMatchObject({ status: 'REJECTED', reason: 'SUPPRESSED' });
    const metrics = await t.http().get('/metrics').set('Authorization', `Bearer ${METRICS}`);
    expect(metrics.text).toMatch(/bulk_inbound_messages_total\{keyword="STOP"\} 1\b/);
    expect(metrics.text).toMatch(/bulk_inbound_messages_total\{keyword="none"\} [1-9]/);
    expect(metrics.text).toMatch(/bulk_suppressed_recipients_total\{channel="sms"\} 1\b/);
  });

  it('acknowledges a message to a number no account has, and stores nothing', async () => {
    const before = (await inboundTexts(t, tenant)).length;
    expect(await smsc.sendMo(HANDSET, '260950009999', 'anyone?')).toBe(0);
    expect((await inboundTexts(t, tenant)).length).toBe(before);
  });
});

const missing = netSmppMissing();
if (missing) console.warn(`\n!!! SKIPPING the Net::SMPP inbound tests: ${missing}\n`);

describe.skipIf(missing !== null)('inbound SMS over SMPP from an independent SMSC (Net::SMPP)', () => {
  let smsc: NetSmppSmsc;
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    smsc = await startNetSmppSmsc();
    t = await startSmppApp(smsc.url);
    tenant = await createTenant(t, { prices: { sms: '1' } });
    await t.app.get(InboundNumberStore).add(tenant.account.id, NUMBER, '');
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await smsc?.close();
  });

  it('decodes, reassembles and stores what the handset writes back, and its STOP suppresses it', async () => {
    // A destination ending in 7 makes the SMSC write back from that handset (net-smpp-smsc.pl).
    const handset = '260962000007';
    const sent = await t
      .http()
      .post('/api/v1/json/bulk/sms')
      .set('X-API-Key', tenant.key)
      .send({ from: NUMBER, to: [handset], message: 'Tell us' });
    expect(sent.status).toBe(200);
    const messageId = sent.body.data[0].message_id;
    const rows = await waitFor(
      async () => {
        const data = await inboundTexts(t, tenant);
        return data.length >= 6 ? data : null;
      },
      20_000,
      'six inbound messages',
    );
    // The SMSC sends without waiting for answers, so the two concatenated messages may complete in either order.
    expect(rows.map((r) => r.text).sort()).toEqual(
      [
        'Hi @home £5',
        'Привет 👋',
        'Café olé',
        'first part, second part, third part.',
        'Emoji 😀 split',
        'STOP',
      ].sort(),
    );
    for (const r of rows) expect(r).toMatchObject({ from: handset, to: NUMBER, in_reply_to: messageId });
    expect(rows.find((r) => r.text === 'STOP')!.keyword).toBe('STOP');
    // Each answered ESME_ROK, once stored.
    const answers = () => smsc.lines.filter((l) => l.startsWith('mo_resp ')).map((l) => l.split(' ')[1]);
    await waitFor(async () => answers().length === 9, 10_000, 'nine deliver_sm_resp');
    expect(answers()).toEqual(Array(9).fill('0'));
    const again = await t
      .http()
      .post('/api/v1/json/bulk/sms')
      .set('X-API-Key', tenant.key)
      .send({ from: NUMBER, to: [handset, '260962000000'], message: 'More?' });
    expect(again.body.data[0]).toMatchObject({ status: 'REJECTED', reason: 'SUPPRESSED' });
  });
});
