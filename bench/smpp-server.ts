/**
 * E-SMPP: a reseller's Kannel sending through our SMPP server. Runs inside `npm run bench`, or alone:
 *   npm run build && npm run build:bench && node dist/bench-build/bench/smpp-server.js [--quick]
 *
 * The same Kannel (bearerbox + smsbox) pushes `count` messages twice in one run: straight to the
 * bench's SMPP peer (B3's baseline, benchKannel), then to our SMPP server, which stores and charges
 * each, and a worker process hands them to the same peer. Both runs are fed by sendsms as it
 * goes, with Kannel bound from the start (the run through us cannot be queued first, see
 * kannelThrough, and a direct run queued first then released measures Kannel's pipe alone:
 * 1.25-1.5× the rate it reaches fed). Both rates are the count over the span between the first
 * and the last submit_sm the peer received. The bar is 0.8×. Beside it,
 * the rate at which our server stored the submits (the SMPP server's share of the path, without
 * the worker's), and the API's CPU per message accepted over SMPP (the API process's CPU over
 * the run, receipts sent back to Kannel included, divided by the count), to hold against B1's
 * CPU per HTTP send.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createConnection } from 'mysql2/promise';
import { startSmppPeer, type SmppPeer } from '../test/support/smpp-peer.js';
import {
  benchKannel,
  kannelConfig,
  kannelInstalled,
  KANNEL_DAEMONS,
  sendsmsAll,
  stopBoxes,
  waitForKannel,
} from './kannel.js';
import {
  cpuMs,
  dropBenchState,
  freePort,
  sleep,
  startBenchApi,
  startNode,
  stop,
  waitHttp,
  type BenchRow,
} from './lib.js';

const WINDOW = 100;

export async function benchSmppServer(quick: boolean): Promise<BenchRow[]> {
  if (!kannelInstalled()) {
    console.warn('E-SMPP skipped: Debian kannel (bearerbox, smsbox) is not installed');
    return [];
  }
  const count = quick ? 2000 : 30_000;
  const peer = await startSmppPeer({ autoReceipt: 'DELIVRD' });
  const smppPort = await freePort();
  const { name, api, env, cli, proc } = await startBenchApi(
    'esmpp',
    { SMS_TRANSPORT: 'smpp', SMPP_URL: peer.url, SMPP_TPS: '100000', SMPP_WINDOW: String(WINDOW) },
    { RUN_WORKERS: 'false', SMPP_SERVER_PORT: String(smppPort) },
  );
  let worker: ChildProcess | undefined;
  try {
    const direct = await benchKannel(peer, count, WINDOW, { fedAsItGoes: true });

    await waitHttp(`${api}/health/ready`);
    cli('accounts', 'create', '--username', 'reseller', '--password', 'kannel-through-us-pass-1');
    cli('accounts', 'credit', '--username', 'reseller', '--channel', 'sms', '--amount', '1000000');
    cli('accounts', 'price', '--username', 'reseller', '--channel', 'sms', '--cost-per-unit', '0.01');
    const { password } = cli(
      'smpp',
      'credentials',
      'create',
      '--username',
      'reseller',
      '--system-id',
      'reseller',
      '--tps',
      '100000',
    ) as { password: string };
    worker = startNode('dist/worker.js', [], env);
    await sleep(2000);
    const cpuBefore = cpuMs(proc.pid!);
    const through = await kannelThrough({ port: smppPort, systemId: 'reseller', password }, peer, count);
    const apiCpuMs = cpuMs(proc.pid!) - cpuBefore;
    const ratio = through / direct;
    const accepted = await acceptedRate(name);
    return [
      {
        id: 'E-SMPP',
        metric: `Kannel → our SMPP server → worker → SMPP peer, ${count} messages (baseline: Kannel → peer)`,
        value: Math.round(through),
        unit: 'msg/s',
        baseline: Math.round(direct),
        ratio: Math.round(ratio * 100) / 100,
        bar: '≥ 0.8×',
        ok: ratio >= 0.8,
      },
      {
        id: 'E-SMPP',
        metric: `submits stored by our SMPP server from Kannel, ${count} messages (first to last stored)`,
        value: Math.round(accepted),
        unit: 'msg/s',
        bar: 'reported; the end-to-end rate above cannot exceed it',
        ok: true,
      },
      {
        id: 'E-SMPP-CPU',
        metric: 'API CPU per message accepted over SMPP (compare B1 CPU per send)',
        value: Math.round((apiCpuMs * 1000) / count),
        unit: 'µs',
        bar: 'reported; the bar is B1 CPU per send',
        ok: true,
      },
    ];
  } finally {
    await stop(worker);
    await stop(proc);
    await peer.close();
    const db = await createConnection({ host: '127.0.0.1', user: 'root' });
    await dropBenchState(db, name);
    await db.end();
  }
}

/** Messages stored per second in the bench database `name`, over the span of their creation times. */
async function acceptedRate(name: string): Promise<number> {
  const db = await createConnection({ host: '127.0.0.1', user: 'root', database: name });
  try {
    const [[r]] = (await db.query(
      'SELECT COUNT(*) AS n, TIMESTAMPDIFF(MICROSECOND, MIN(created_at), MAX(created_at)) / 1000 AS ms FROM messages',
    )) as any;
    return Number(r.n) / (Number(r.ms) / 1000);
  } finally {
    await db.end();
  }
}

/**
 * Kannel with its smsc pointed at `target` (our SMPP server), fed by sendsms as fast as smsbox
 * takes it (our server cannot refuse the bind as the peer does to hold Kannel's queue, and a
 * stopped or suspended bearerbox refuses or stalls sendsms; sendsms alone runs at several times
 * these rates here); answers msg/s as the peer received them, first to last.
 */
async function kannelThrough(
  target: { port: number; systemId: string; password: string },
  peer: SmppPeer,
  count: number,
): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-kannel-esmpp-'));
  const ports = { admin: await freePort(), box: await freePort(), send: await freePort() };
  const conf = join(dir, 'kannel.conf');
  writeFileSync(conf, kannelConfig(dir, ports, { id: 'ours', ...target }, WINDOW));
  const boxes: ChildProcess[] = [];
  const admin = (cmd: string) =>
    fetch(`http://127.0.0.1:${ports.admin}/${cmd}${cmd.includes('?') ? '&' : '?'}password=bench`).then((r) =>
      r.text(),
    );
  try {
    boxes.push(spawn(KANNEL_DAEMONS.bearerbox, [conf], { stdio: 'ignore' }));
    await waitForKannel(async () => /ours\[[^\]]*\].*online/s.test(await admin('status.txt')));
    boxes.push(spawn(KANNEL_DAEMONS.smsbox, [conf], { stdio: 'ignore' }));
    await waitForKannel(async () => (await admin('status')).includes('smsbox:'));
    const first = 8_000_000;
    const dest = (i: number) => String(260_970_000_000 + first + i);
    const from = peer.received.length;
    await sendsmsAll(ports.send, count, dest);
    const until = Date.now() + 300_000;
    const mine = () =>
      peer.received.slice(from).filter((r) => Number(r.destination) >= 260_970_000_000 + first);
    while (mine().length < count && Date.now() < until) await sleep(100);
    const got = mine();
    if (got.length < count)
      throw new Error(`Kannel through our SMPP server delivered ${got.length} of ${count}`);
    return got.length / ((got[got.length - 1]!.at - got[0]!.at) / 1000);
  } finally {
    await stopBoxes(boxes);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await benchSmppServer(process.argv.includes('--quick'));
  for (const r of rows) console.log(JSON.stringify(r));
  process.exit(0);
}
