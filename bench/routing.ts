/**
 * B7: several SMSCs. Runs inside `npm run bench`, or alone:
 *   npm run build && npm run build:bench && node dist/bench-build/bench/routing.js [--quick]
 *
 * Two connectors capped at 500 TPS each (two SMPP peers), two worker processes, and a backlog
 * of normal messages queued before the workers start. Measured at each SMSC: the rate it
 * receives over a window of whole calendar seconds (bar: within ±5% of its cap) and its busiest
 * second (bar: never more than 5% above the cap). Then, with that backlog still queued, the
 * time a high-priority message takes from its acceptance (created_at) to the SMSC (bar: ≤ 1 s).
 */
import { pathToFileURL } from 'node:url';
import { createConnection } from 'mysql2/promise';
import { startSmppPeer, type SmppPeer } from '../test/support/smpp-peer.js';
import {
  median,
  sleep,
  startNode,
  stop,
  waitHttp,
  type BenchRow,
  startBenchApi,
  dropBenchState,
} from './lib.js';

const TPS = 500;

export async function benchRouting(quick: boolean): Promise<BenchRow[]> {
  const windowSeconds = quick ? 8 : 20;
  const backlog = quick ? 30_000 : 100_000;
  const {
    name,
    api,
    env,
    cli,
    proc: apiProc,
  } = await startBenchApi('route', {
    RUN_WORKERS: 'false',
    SMS_TRANSPORT: 'smpp',
    RATE_LIMIT_DEFAULT: '1000000/1',
    MAX_RECIPIENTS: '100000',
  });
  const peers: SmppPeer[] = [await startSmppPeer(), await startSmppPeer()];
  const workers: Array<ReturnType<typeof startNode>> = [];
  const rows: BenchRow[] = [];
  const db = await (async () => {
    await waitHttp(`${api}/health/ready`);
    return createConnection({ host: '127.0.0.1', user: 'root', database: name, timezone: 'Z' });
  })();
  try {
    cli('accounts', 'create', '--username', 'bench', '--password', 'load-test-secret-1');
    cli('accounts', 'credit', '--username', 'bench', '--channel', 'sms', '--amount', '100000000');
    cli('accounts', 'price', '--username', 'bench', '--channel', 'sms', '--cost-per-unit', '0.01');
    const key = cli('keys', 'create', '--username', 'bench', '--name', 'bench').key as string;
    const prefixes = ['26097', '26096'];
    peers.forEach((p, i) => {
      cli('connectors', 'add', '--name', `smsc${i}`, '--url', p.url, '--tps', String(TPS));
      cli('routes', 'add', '--prefix', prefixes[i], '--connector', `smsc${i}`);
    });
    await sleep(1100); // the API reads routes once a second
    const send = async (to: string[], priority?: string) => {
      const res = await fetch(`${api}/api/v1/json/bulk/sms`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ from: 'BENCH', to, message: 'Queued', ...(priority ? { priority } : {}) }),
      });
      if (res.status !== 200) throw new Error(`send answered ${res.status}: ${await res.text()}`);
    };
    // The backlog, half to each connector, queued before any worker runs.
    for (let i = 0; i < backlog; i += 10_000) {
      const prefix = prefixes[(i / 10_000) % 2];
      await send(
        Array.from({ length: 10_000 }, (_, j) => `${prefix}${String(1_000_000 + i + j).padStart(7, '0')}`),
      );
    }
    for (let w = 0; w < 2; w++) workers.push(startNode('dist/worker.js', [], env));

    // Throughput: whole calendar seconds after the first two (binding, warm-up).
    while (peers.some((p) => p.received.length === 0)) await sleep(50);
    const first = Math.floor(Math.max(...peers.map((p) => p.received[0].at)) / 1000) + 2;
    while (Date.now() < (first + windowSeconds + 1) * 1000) await sleep(200);
    peers.forEach((p, i) => {
      const perSecond = new Map<number, number>();
      for (const r of p.received) {
        const s = Math.floor(r.at / 1000);
        if (s >= first && s < first + windowSeconds) perSecond.set(s, (perSecond.get(s) ?? 0) + 1);
      }
      const counts = Array.from({ length: windowSeconds }, (_, k) => perSecond.get(first + k) ?? 0);
      const rate = counts.reduce((a, b) => a + b, 0) / windowSeconds;
      const busiest = Math.max(...counts);
      rows.push({
        id: 'B7',
        metric: `SMSC ${i + 1} of 2 (cap ${TPS} TPS, 2 workers), mean over ${windowSeconds} s`,
        value: Math.round(rate * 10) / 10,
        unit: 'msg/s',
        bar: `${TPS * 0.95}–${TPS * 1.05}`,
        ok: rate >= TPS * 0.95 && rate <= TPS * 1.05,
      });
      rows.push({
        id: 'B7',
        metric: `SMSC ${i + 1} of 2, busiest calendar second`,
        value: busiest,
        unit: 'msg/s',
        bar: `≤ ${TPS * 1.05}`,
        ok: busiest <= TPS * 1.05,
      });
    });

    // Priority: one high-priority message at a time, the backlog still queued.
    const [[left]] = (await db.query(
      "SELECT COUNT(*) AS n FROM messages WHERE status = 'ACKNOWLEDGED'",
    )) as any;
    const latencies: number[] = [];
    const fromRequest: number[] = [];
    for (let k = 0; k < 5; k++) {
      const to = `${prefixes[k % 2]}9${String(k).padStart(6, '0')}`;
      const peer = peers[k % 2];
      const t0 = Date.now();
      await send([to], 'high');
      while (!peer.received.some((r) => r.destination === to) && Date.now() - t0 < 30_000) await sleep(5);
      const hit = peer.received.find((r) => r.destination === to);
      const [[row]] = (await db.query('SELECT created_at FROM messages WHERE recipient = ?', [to])) as any;
      latencies.push(hit ? hit.at - new Date(row.created_at).getTime() : 30_000);
      fromRequest.push(hit ? hit.at - t0 : 30_000);
      await sleep(300);
    }
    rows.push({
      id: 'B7',
      metric: `high priority, accepted to SMSC, ${Number(left.n)} normal queued (worst of 5)`,
      value: Math.max(...latencies),
      unit: 'ms',
      bar: '≤ 1000 ms',
      ok: Math.max(...latencies) <= 1000 && Number(left.n) >= backlog / 2,
    });
    rows.push({
      id: 'B7',
      metric: 'high priority, accepted to SMSC (median of 5)',
      value: median(latencies),
      unit: 'ms',
      bar: '',
      ok: true,
    });
    rows.push({
      id: 'B7',
      metric: 'high priority, request sent to SMSC (median of 5)',
      value: median(fromRequest),
      unit: 'ms',
      bar: '',
      ok: true,
    });
  } finally {
    for (const w of workers) await stop(w);
    await stop(apiProc);
    for (const p of peers) await p.close();
    await dropBenchState(db, name);
    await db.end();
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  benchRouting(process.argv.includes('--quick')).then(
    (rows) => {
      for (const r of rows)
        console.log(
          `${r.id}  ${r.metric.padEnd(70)} ${`${r.value} ${r.unit}`.padEnd(14)} ${r.bar.padEnd(14)} ${r.ok ? 'yes' : 'NO'}`,
        );
      process.exit(0);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
