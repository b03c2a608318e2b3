import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNetSmppEsme, netSmppMissing, type NetSmppEsme } from '../support/net-smpp-esme.js';
import { freePort, killOnExit } from '../support/local-state.js';
import { createSmppTenant, type SmppTenant } from '../support/smpp-server-app.js';
import { startTestApp, testEnv, uniqueName, type TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

/**
 * A crash mid-stream: an API process (dist/main.js, a child of the test) is SIGKILLed while an
 * ESME pipelines submits to it. Every submit_sm_resp that reached the ESME with status 0 names
 * a message that is in the database afterwards: the answer goes only once the message is stored.
 */
const missing = netSmppMissing();

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

describe.skipIf(missing)('SMPP server: a crash mid-stream', () => {
  const name = uniqueName();
  let setup: TestApp;
  let tenant: SmppTenant;
  let api: ChildProcess | undefined;
  let esme: NetSmppEsme | undefined;

  beforeAll(async () => {
    // The databases and the credential, made by an app without a listener; the child serves SMPP.
    setup = await startTestApp({}, name);
    tenant = await createSmppTenant(setup, {
      balances: { sms: '100000' },
      prices: { sms: '0.01' },
      credential: { tps: 100_000 },
    });
  }, 60_000);
  afterAll(async () => {
    api?.kill('SIGKILL');
    await esme?.close();
    await setup?.close();
  });

  it('loses no message whose submit_sm_resp was sent when the process is killed', async () => {
    const smppPort = await freePort();
    const env = {
      ...process.env,
      ...testEnv(name, {
        PORT: String(await freePort()),
        SMPP_SERVER_PORT: String(smppPort),
        LOG_LEVEL: 'error',
      }),
    };
    api = killOnExit(spawn(process.execPath, ['dist/main.js'], { env, stdio: 'ignore' }));
    await waitFor(() => listening(smppPort), 60_000, 'the SMPP listener of the child');
    esme = await connectNetSmppEsme(smppPort);
    expect((await esme.bind(tenant.systemId, tenant.smppPassword)).status).toBe(0);

    const total = 2000;
    await esme.send(
      'submit_sm',
      { source_addr: 'ACME', destination_addr: '260971000030', data_coding: 0 },
      { short_message: Buffer.from('crash test').toString('hex') },
      total,
    );
    const accepted: string[] = [];
    let answered = 0;
    let killed = false;
    for (;;) {
      const { pdus, eof } = await esme.read(25);
      answered += pdus.length;
      for (const p of pdus) if (p.status === 0 && p.message_id) accepted.push(p.message_id);
      if (!killed && answered >= 100) {
        api.kill('SIGKILL');
        killed = true;
      }
      if (eof || answered >= total) break;
    }
    expect(killed).toBe(true);
    expect(accepted.length).toBeGreaterThanOrEqual(100);
    const found = (await setup.ds.query('SELECT id FROM messages WHERE id IN (?)', [accepted])) as Array<{
      id: string;
    }>;
    expect(new Set(found.map((r) => String(r.id)))).toEqual(new Set(accepted));
  }, 120_000);
});
