import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectNetSmppEsme,
  netSmppMissing,
  type EsmePdu,
  type NetSmppEsme,
} from '../support/net-smpp-esme.js';
import { createSmppTenant, startSmppServerApp, type SmppTenant } from '../support/smpp-server-app.js';
import { uniqueName, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

/**
 * Receipts and inbound SMS out to customers' binds, across two API processes on one database and
 * Redis (A runs the workers, so the states change there; B only holds binds), with Net::SMPP as
 * the ESME: a receipt for a message submitted on A reaches a receiver bound on B; one waits while
 * no receiver is bound; a temporary error is tried again, a permanent one drops the receipt.
 */
const DELIVER_SM = '0x00000005';
const ESME_RTHROTTLED = 0x58;
const ESME_RINVDSTADR = 0x0b;

const missing = netSmppMissing();

describe.skipIf(missing)('SMPP receipts across two API processes', () => {
  let a: TestApp & { smppPort: number };
  let b: TestApp & { smppPort: number };
  let tenant: SmppTenant;
  const open: NetSmppEsme[] = [];
  const connect = async (port: number, type: 'transmitter' | 'receiver' | 'transceiver', who = tenant) => {
    const e = await connectNetSmppEsme(port);
    open.push(e);
    expect((await e.bind(who.systemId, who.smppPassword, type)).status).toBe(0);
    return e;
  };
  /** The next deliver_sm the ESME reads (enquire_links in between are answered and skipped). */
  const nextDeliver = async (e: NetSmppEsme): Promise<EsmePdu> => {
    for (;;) {
      const { pdus, eof } = await e.read(1);
      if (eof || !pdus[0]) throw new Error('the server closed the connection');
      if (pdus[0].cmd === DELIVER_SM) return pdus[0];
    }
  };
  const submit = async (e: NetSmppEsme, to: string, text: string) => {
    const resp = await e.submitText('ACME', to, text, { registered_delivery: 1 });
    expect(resp.status).toBe(0);
    return resp.message_id!;
  };
  const waitingFor = async (messageId: string) =>
    Number(
      (await a.ds.query('SELECT COUNT(*) AS n FROM smpp_receipts WHERE message_id = ?', [messageId]))[0].n,
    );

  beforeAll(async () => {
    const name = uniqueName();
    a = await startSmppServerApp({ RUN_WORKERS: 'true' }, name);
    b = await startSmppServerApp({}, name);
    // A test credential: its recipients decide the outcome (…0000 undelivered, others delivered).
    tenant = await createSmppTenant(a, { credential: { mode: 'test', tps: 1000 } });
  }, 60_000);
  afterAll(async () => {
    await Promise.all(open.map((e) => e.close()));
    await b?.app.close();
    await a?.close();
  });

  it('sends the receipt of a message submitted on process A to a receiver bound on process B', async () => {
    const receiver = await connect(b.smppPort, 'receiver');
    const sender = await connect(a.smppPort, 'transmitter');
    const id = await submit(sender, '260971234567', 'Hello over SMPP, from A');
    const dlr = await nextDeliver(receiver);
    expect((await b.http().get('/metrics')).text).toMatch(/bulk_smpp_binds\{bind_type="receiver"\} 1/);
    expect(dlr.esm_class).toBe(4);
    expect(dlr.receipted_message_id).toBe(id);
    expect(dlr.short_message).toMatch(
      new RegExp(
        `^id:${id} sub:001 dlvrd:001 submit date:\\d{10} done date:\\d{10} stat:DELIVRD err:000 text:Hello over SMPP, fro$`,
      ),
    );
    await waitFor(async () => (await waitingFor(id)) === 0, 10_000, 'the receipt to leave the outbox');
    await receiver.close();
  }, 60_000);

  it('keeps a receipt while no receiver is bound and sends it at the next bind', async () => {
    const sender = await connect(a.smppPort, 'transmitter');
    const id = await submit(sender, '260971230000', 'Nobody listens yet');
    await waitFor(async () => (await waitingFor(id)) === 1, 20_000, 'the receipt in the outbox');
    const receiver = await connect(b.smppPort, 'receiver');
    const dlr = await nextDeliver(receiver);
    expect(dlr.receipted_message_id).toBe(id);
    expect(dlr.short_message).toMatch(/ dlvrd:000 .* stat:UNDELIV /);
    await receiver.close();
  }, 60_000);

  it('tries a receipt answered with a temporary error again, and drops one answered with a permanent error', async () => {
    const other = await createSmppTenant(a, { credential: { mode: 'test', tps: 1000 } });
    const receiver = await connect(b.smppPort, 'transceiver', other);
    await receiver.answerDeliverWith(ESME_RTHROTTLED);
    const first = await submit(receiver, '260971234568', 'Retry me');
    expect((await nextDeliver(receiver)).receipted_message_id).toBe(first);
    await receiver.answerDeliverWith(0);
    // The backoff starts at about 5 s.
    expect((await nextDeliver(receiver)).receipted_message_id).toBe(first);
    await waitFor(async () => (await waitingFor(first)) === 0, 10_000, 'the retried receipt answered');

    await receiver.answerDeliverWith(ESME_RINVDSTADR);
    const second = await submit(receiver, '260971234569', 'Refuse me');
    expect((await nextDeliver(receiver)).receipted_message_id).toBe(second);
    await waitFor(async () => (await waitingFor(second)) === 0, 10_000, 'the refused receipt dropped');
    const metrics = (await b.http().get('/metrics')).text;
    expect(metrics).toMatch(/bulk_smpp_receipts_dropped_total\{kind="receipt"\} 1/);
    expect(metrics).toMatch(/bulk_smpp_receipts_retried_total\{kind="receipt"\} [1-9]/);
  }, 60_000);
});
