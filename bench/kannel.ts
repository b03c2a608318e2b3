import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SmppPeer } from '../test/support/smpp-peer.js';
import { freePort, sleep } from './lib.js';

/** Debian's kannel package puts its daemons here. */
const BEARERBOX = '/usr/sbin/bearerbox';
const SMSBOX = '/usr/sbin/smsbox';

export const kannelInstalled = () => existsSync(BEARERBOX) && existsSync(SMSBOX);

/** Recipients per sendsms call (smsbox splits a space-separated `to` into one message each). */
const PER_CALL = 100;

/**
 * Kannel (bearerbox + smsbox) pushing `count` messages to `smsc`, measured as B3 measures a
 * worker: the messages wait in bearerbox's queue while its SMPP link is stopped, then the link is
 * started and the rate is the count over the span between the first and the last submit_sm the
 * peer answered. Kannel holds one bind with the same window as B3's worker (`window`) and asks
 * for delivery receipts, which the peer sends for every message, as it does for the worker.
 * With `fedAsItGoes` the link is up from the start and takes the messages as sendsms brings them
 * (as E-SMPP's run through our SMPP server must be fed). Answers msg/s.
 */
export async function benchKannel(
  smsc: SmppPeer,
  count: number,
  window: number,
  { fedAsItGoes = false } = {},
): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-kannel-'));
  const [adminPort, boxPort, sendPort] = [await freePort(), await freePort(), await freePort()];
  const conf = join(dir, 'kannel.conf');
  writeFileSync(
    conf,
    kannelConfig(
      dir,
      { admin: adminPort, box: boxPort, send: sendPort },
      {
        id: 'peer',
        port: smsc.port,
        systemId: smsc.options.systemId!,
        password: smsc.options.password!,
        msgIdType: '0x01',
      },
      window,
    ),
  );
  const boxes: ChildProcess[] = [];
  const admin = (cmd: string) =>
    fetch(`http://127.0.0.1:${adminPort}/${cmd}?password=bench`).then((r) => r.text());
  try {
    // Kannel cannot bind while the peer refuses its password: it keeps what it is sent queued.
    const password = smsc.options.password;
    if (!fedAsItGoes) smsc.options.password = `${password}-closed`;
    boxes.push(spawn(BEARERBOX, [conf], { stdio: 'ignore' }));
    await waitForKannel(async () =>
      fedAsItGoes
        ? /peer\[[^\]]*\].*online/s.test(await admin('status.txt'))
        : (await admin('status')).includes('peer'),
    );
    boxes.push(spawn(SMSBOX, [conf], { stdio: 'ignore' }));
    await waitForKannel(async () => (await admin('status')).includes('smsbox:'));
    const first = 7_000_000;
    const dest = (i: number) => String(260_970_000_000 + first + i);
    const from = smsc.received.length;
    await sendsmsAll(sendPort, count, dest);
    smsc.options.password = password;
    const until = Date.now() + 120_000;
    while (smsc.received.length - from < count && Date.now() < until) await sleep(100);
    const mine = smsc.received.slice(from).filter((r) => Number(r.destination) >= 260_970_000_000 + first);
    if (mine.length < count) throw new Error(`Kannel handed over ${mine.length} of ${count}`);
    const span = mine[mine.length - 1].at - mine[0].at;
    return mine.length / (span / 1000);
  } finally {
    await stopBoxes(boxes);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The kannel.conf of a bench run: bearerbox's admin and box ports, one SMPP transceiver link
 * (`smsc-id` = `smsc.id`; `msg-id-type` only when given) holding `window` submits in flight, and smsbox's sendsms as user
 * bench/bench with receipts kept in memory.
 */
export function kannelConfig(
  dir: string,
  ports: { admin: number; box: number; send: number },
  smsc: { id: string; port: number; systemId: string; password: string; msgIdType?: string },
  window: number,
): string {
  return [
    'group = core',
    `admin-port = ${ports.admin}`,
    'admin-password = bench',
    `smsbox-port = ${ports.box}`,
    'admin-interface = 127.0.0.1',
    'box-allow-ip = 127.0.0.1',
    `log-file = "${join(dir, 'bearerbox.log')}"`,
    'log-level = 4',
    'dlr-storage = internal',
    '',
    'group = smsc',
    'smsc = smpp',
    `smsc-id = ${smsc.id}`,
    'host = 127.0.0.1',
    `port = ${smsc.port}`,
    'transceiver-mode = true',
    'system-type = ""',
    `smsc-username = "${smsc.systemId}"`,
    `smsc-password = "${smsc.password}"`,
    `max-pending-submits = ${window}`,
    'reconnect-delay = 1',
    ...(smsc.msgIdType ? [`msg-id-type = ${smsc.msgIdType}`] : []),
    '',
    'group = smsbox',
    'bearerbox-host = 127.0.0.1',
    `sendsms-port = ${ports.send}`,
    'sendsms-interface = 127.0.0.1',
    `log-file = "${join(dir, 'smsbox.log')}"`,
    'log-level = 4',
    '',
    'group = sendsms-user',
    'username = bench',
    'password = bench',
    `max-messages = 1`,
    '',
  ].join('\n');
}

/** `count` messages to dest(0…count-1) through smsbox's sendsms, PER_CALL recipients a call, 20 calls at once. */
export async function sendsmsAll(
  sendPort: number,
  count: number,
  dest: (i: number) => string,
): Promise<void> {
  const calls: Array<() => Promise<void>> = [];
  for (let i = 0; i < count; i += PER_CALL) {
    const to = Array.from({ length: Math.min(PER_CALL, count - i) }, (_, j) => dest(i + j)).join(' ');
    calls.push(async () => {
      const url = `http://127.0.0.1:${sendPort}/cgi-bin/sendsms?username=bench&password=bench&from=BENCH&dlr-mask=3&text=Queued&to=${encodeURIComponent(to)}`;
      const res = await fetch(url);
      const body = await res.text();
      if (res.status >= 300) throw new Error(`Kannel sendsms answered ${res.status}: ${body}`);
    });
  }
  for (let c = 0; c < calls.length; c += 20) await Promise.all(calls.slice(c, c + 20).map((f) => f()));
}

/** Stops bearerbox and smsbox: SIGTERM, then SIGKILL for any still running half a second later. */
export async function stopBoxes(boxes: ChildProcess[]): Promise<void> {
  for (const b of [...boxes].reverse()) b.kill('SIGTERM');
  await sleep(500);
  for (const b of boxes) if (b.exitCode === null) b.kill('SIGKILL');
}

export const KANNEL_DAEMONS = { bearerbox: BEARERBOX, smsbox: SMSBOX };

export async function waitForKannel(ok: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await ok().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error('Kannel did not come up');
}
