import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, killOnExit } from '../support/local-state.js';
import { createSmppTenant, startSmppServerApp, type SmppTenant } from '../support/smpp-server-app.js';
import { startSmppPeer, type SmppPeer } from '../support/smpp-peer.js';
import type { TestApp } from '../support/test-app.js';
import { waitFor } from '../support/wait.js';

/**
 * Kannel (Debian's bearerbox and smsbox) as the customer's ESME, configured with the
 * `kannel.conf` of docs/api/smpp-receipts.md as a customer would paste it: a sendsms with
 * dlr-mask=3 is stored and charged by us, delivered by the app's SMSC (a loopback peer), and its
 * receipt comes back to Kannel over the same transceiver bind and on to the send's dlr-url.
 */
const BEARERBOX = '/usr/sbin/bearerbox';
const SMSBOX = '/usr/sbin/smsbox';
const installed = existsSync(BEARERBOX) && existsSync(SMSBOX);
const DOC = new URL('../../docs/api/smpp-receipts.md', import.meta.url);

/** The ```ini block under the page's "Kannel as your ESME" heading. */
function kannelSnippet(): string {
  const page = readFileSync(DOC, 'utf8');
  const section = page.slice(page.indexOf('## Kannel as your ESME'));
  const m = /```ini\n([\s\S]*?)```/.exec(section);
  if (!m) throw new Error('no ```ini block under "Kannel as your ESME" in docs/api/smpp-receipts.md');
  return m[1]!;
}

describe.skipIf(!installed)('Kannel as a customer ESME over our SMPP server', () => {
  let smsc: SmppPeer;
  let t: TestApp & { smppPort: number };
  let tenant: SmppTenant;
  let dlrs: Server;
  const received: URLSearchParams[] = [];
  const boxes: ChildProcess[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'kannel-esme-'));
  let sendPort = 0;
  let adminPort = 0;
  const admin = (cmd: string) =>
    fetch(`http://127.0.0.1:${adminPort}/${cmd}?password=admin-pw`).then((r) => r.text());

  beforeAll(async () => {
    smsc = await startSmppPeer({ autoReceipt: 'DELIVRD', receiptDelayMs: 100 });
    t = await startSmppServerApp({ RUN_WORKERS: 'true', SMS_TRANSPORT: 'smpp', SMPP_URL: smsc.url });
    tenant = await createSmppTenant(t, { balances: { sms: '100' }, prices: { sms: '0.5' } });
    dlrs = createServer((req, res) => {
      received.push(new URL(req.url ?? '/', 'http://x').searchParams);
      res.end('ok');
    });
    await new Promise<void>((r) => dlrs.listen(0, '127.0.0.1', r));

    [adminPort, sendPort] = [await freePort(), await freePort()];
    const fill: Record<string, string> = {
      ADMIN_PORT: String(adminPort),
      ADMIN_PASSWORD: 'admin-pw',
      SMSBOX_PORT: String(await freePort()),
      SMPP_HOST: '127.0.0.1',
      SMPP_PORT: String(t.smppPort),
      SYSTEM_ID: tenant.systemId,
      PASSWORD: tenant.smppPassword,
      SENDSMS_PORT: String(sendPort),
      SENDSMS_USER: 'reseller',
      SENDSMS_PASSWORD: 'reseller-pw',
    };
    const conf = join(dir, 'kannel.conf');
    writeFileSync(
      conf,
      kannelSnippet().replace(/\b[A-Z][A-Z_]+[A-Z]\b/g, (w) => fill[w] ?? w),
    );
    boxes.push(killOnExit(spawn(BEARERBOX, [conf], { stdio: 'ignore' })));
    await waitFor(
      async () => /bulk\[[^\]]*\].*online/s.test(await admin('status.txt')),
      30_000,
      'Kannel bound',
    );
    boxes.push(killOnExit(spawn(SMSBOX, [conf], { stdio: 'ignore' })));
    await waitFor(async () => (await admin('status.txt')).includes('smsbox:'), 30_000, 'smsbox up');
  }, 90_000);

  afterAll(async () => {
    for (const b of [...boxes].reverse()) b.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    for (const b of boxes) if (b.exitCode === null && b.signalCode === null) b.kill('SIGKILL');
    await new Promise<void>((r) => (dlrs ? dlrs.close(() => r()) : r()));
    await t?.close();
    await smsc?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores, charges and delivers a sendsms, and brings its DLR back to the dlr-url as delivered', async () => {
    const dlrPort = (dlrs.address() as AddressInfo).port;
    const dlrUrl = `http://127.0.0.1:${dlrPort}/dlr?type=%d&answer=%A`;
    const res = await fetch(
      `http://127.0.0.1:${sendPort}/cgi-bin/sendsms?username=reseller&password=reseller-pw&from=ACME` +
        `&to=260971234567&text=${encodeURIComponent('Hello through Kannel')}&dlr-mask=3&dlr-url=${encodeURIComponent(dlrUrl)}`,
    );
    expect(res.status).toBeLessThan(300);

    const [row] = (await waitFor(
      async () => {
        const rows = (await t.ds.query(
          `SELECT m.id, m.status, m.cost, m.smpp_credential_id FROM messages m
          WHERE m.account_id = ? AND m.recipient = '260971234567'`,
          [tenant.account.id],
        )) as Array<{ id: string; status: string; cost: string; smpp_credential_id: number }>;
        return rows[0]?.status === 'DELIVERED' ? rows : null;
      },
      30_000,
      'the message DELIVERED',
    )) as Array<{ id: string; cost: string; smpp_credential_id: number }>;
    expect(Number(row!.cost)).toBe(0.5);
    expect(row!.smpp_credential_id).not.toBeNull();
    expect(smsc.received.map((r) => r.destination)).toContain('260971234567');

    const delivered = await waitFor(
      async () => received.find((q) => q.get('type') === '1'),
      30_000,
      'the DLR at the dlr-url',
    );
    expect(delivered.get('answer')).toMatch(new RegExp(`id:${row!.id} .*stat:DELIVRD`));
  }, 90_000);
});
