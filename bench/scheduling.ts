/**
 * S1 and S2: scheduled sends. Runs inside `npm run bench`, or alone:
 *   npm run build && npm run build:bench && node dist/bench-build/bench/scheduling.js [--quick]
 *
 * S1: 10,000 messages (10 requests of 1,000 recipients) scheduled for the same second, handed to
 * the local SMPP peer by one worker process: how long after send_at the first, the 99th
 * percentile and the last reach the peer.
 * S2: the single-recipient send rate while 100,000 scheduled messages wait, against the rate
 * without them, in the same run (the worker, with its due scanner, runs in both).
 */
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { createConnection } from 'mysql2/promise';
import { startSmppPeer } from '../test/support/smpp-peer.js';
import {
  median,
  percentile,
  sleep,
  startNode,
  stop,
  waitHttp,
  type BenchRow,
  startBenchApi,
  dropBenchState,
} from './lib.js';

const numbers = (n: number, base: number) =>
  Array.from({ length: n }, (_, i) => String(260_960_000_000 + base + i));

async function rate(url: string, key: string, seconds: number): Promise<number> {
  const r = await autocannon({
    url,
    method: 'POST',
    connections: 50,
    duration: seconds,
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ from: 'BENCH', to: '260971234567', message: 'Your code is 123456' }),
  });
  if (r.non2xx || r.errors) console.warn(`S2: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
  return r.requests.average;
}

export async function benchScheduling(quick: boolean): Promise<BenchRow[]> {
  const seconds = quick ? 3 : 10;
  const passes = quick ? 2 : 3;
  const {
    name,
    api,
    env,
    cli,
    proc: apiProc,
  } = await startBenchApi(
    'sched',
    { RATE_LIMIT_DEFAULT: '1000000/1' },
    { RUN_WORKERS: 'false', MAX_RECIPIENTS: '10000' },
  );
  apiProc.stderr?.on('data', (d: Buffer) => process.stderr.write(`[api] ${d}`));
  const smsc = await startSmppPeer({ autoReceipt: false });
  let worker: ReturnType<typeof startNode> | undefined;
  const rows: BenchRow[] = [];
  const db = await (async () => {
    await waitHttp(`${api}/health/ready`);
    return createConnection({ host: '127.0.0.1', user: 'root', database: name, timezone: 'Z' });
  })();
  // Each body carries a user_reference_id, so a send repeated after a dropped keep-alive
  // connection (the server closing an idle socket as the request goes out) is answered once.
  const send = async (key: string, body: object): Promise<{ api_reference: string; send_at?: string }> => {
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await fetch(`${api}/api/v1/json/bulk/sms`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: JSON.stringify(body),
        });
        if (res.status !== 200)
          throw new Error(`scheduling bench: status ${res.status}: ${await res.text()}`);
        return (await res.json()) as { api_reference: string; send_at?: string };
      } catch (err) {
        if (attempt >= 3 || !(err instanceof TypeError)) throw err;
      }
    }
  };
  try {
    cli('accounts', 'create', '--username', 'sched', '--password', 'load-test-secret-1');
    cli('accounts', 'credit', '--username', 'sched', '--channel', 'sms', '--amount', '100000000');
    cli('accounts', 'price', '--username', 'sched', '--channel', 'sms', '--cost-per-unit', '0.01');
    const key = cli('keys', 'create', '--username', 'sched', '--name', 'bench', '--rate-limit', '1000000/1')
      .key as string;
    worker = startNode('dist/worker.js', [], {
      ...env,
      SMS_TRANSPORT: 'smpp',
      SMPP_URL: smsc.url,
      SMPP_WINDOW: '200',
    });

    // S1: 10,000 due in the same second (10 requests of 1,000), far enough ahead that all are
    // stored as scheduled even on a loaded machine.
    const sendAt = new Date(Math.ceil((Date.now() + 30_000) / 1000) * 1000).toISOString();
    const to = Array.from({ length: 10 }, (_, r) => numbers(1000, r * 1000));
    let scheduled = true;
    for (const [r, list] of to.entries()) {
      const answer = await send(key, {
        from: 'BENCH',
        to: list,
        message: 'The sale starts now',
        send_at: sendAt,
        user_reference_id: `s1-${r}`,
      });
      scheduled &&= answer.send_at === sendAt;
    }
    if (!scheduled) console.warn('S1: some requests were stored after send_at came within 5 s: sent at once');
    const due = Date.parse(sendAt);
    const wanted = new Set(to.flat());
    const until = due + 60_000;
    while (Date.now() < until && smsc.received.filter((r) => wanted.has(r.destination)).length < wanted.size)
      await sleep(100);
    const delays = smsc.received.filter((r) => wanted.has(r.destination)).map((r) => r.at - due);
    const complete = delays.length >= wanted.size;
    const [[phases]] = (await db.query(
      `SELECT MIN(e.occurred_at) AS released_first, MAX(e.occurred_at) AS released_last,
              MIN(m.sent_at) AS sent_first, MAX(m.sent_at) AS sent_last
         FROM messages m JOIN message_events e ON e.message_id = m.id AND e.status = 'ACKNOWLEDGED'
        WHERE m.status <> 'SCHEDULED'`,
    )) as any;
    const after = (d: Date) => Math.round(new Date(d).getTime() - due);
    console.log(
      `S1: released ${after(phases.released_first)}–${after(phases.released_last)} ms after send_at, recorded SENT ${after(phases.sent_first)}–${after(phases.sent_last)} ms`,
    );
    rows.push(
      {
        id: 'S1',
        metric: '10,000 due in one second: first at the SMPP peer',
        value: Math.round(Math.min(...delays)),
        unit: 'ms',
        bar: '',
        ok: complete && scheduled && Math.min(...delays) >= 0,
      },
      {
        id: 'S1',
        metric: '10,000 due in one second: p99 after send_at',
        value: Math.round(percentile(delays, 99)),
        unit: 'ms',
        bar: '≤ 2000 ms',
        ok: complete && percentile(delays, 99) <= 2000,
      },
      {
        id: 'S1',
        metric: `10,000 due in one second: last after send_at (${delays.length} msgs)`,
        value: Math.round(Math.max(...delays)),
        unit: 'ms',
        bar: '≤ 3000 ms',
        ok: complete && Math.max(...delays) <= 3000,
      },
    );

    // S2: the send rate without, then with, 100,000 scheduled messages waiting.
    const url = `${api}/api/v1/json/bulk/sms`;
    await rate(url, key, 1); // warm-up
    const without: number[] = [];
    for (let i = 0; i < passes; i++) without.push(await rate(url, key, seconds));
    const later = new Date(Date.now() + 20 * 86_400_000).toISOString();
    for (let i = 0; i < 10; i++)
      await send(key, {
        from: 'BENCH',
        to: numbers(10_000, 1_000_000 + i * 10_000),
        message: 'Later',
        send_at: later,
        user_reference_id: `s2-${i}`,
      });
    const [[waiting]] = (await db.query(
      "SELECT COUNT(*) AS n FROM messages WHERE status = 'SCHEDULED'",
    )) as any;
    const withThem: number[] = [];
    for (let i = 0; i < passes; i++) withThem.push(await rate(url, key, seconds));
    const a = median(withThem);
    const b = median(without);
    rows.push({
      id: 'S2',
      metric: `single send with ${Number(waiting.n)} scheduled waiting, req/s`,
      value: Math.round(a * 10) / 10,
      unit: 'req/s',
      baseline: Math.round(b * 10) / 10,
      ratio: Math.round((a / b) * 100) / 100,
      bar: '≥ 0.9× without',
      ok: a / b >= 0.9 && Number(waiting.n) >= 100_000,
    });
  } finally {
    await stop(worker);
    await stop(apiProc);
    await smsc.close();
    await dropBenchState(db, name);
    await db.end();
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  benchScheduling(process.argv.includes('--quick')).then(
    (rows) => {
      for (const r of rows)
        console.log(
          `${r.id.padEnd(4)}${r.metric.padEnd(62)}${`${r.value} ${r.unit}`.padEnd(14)}${r.baseline ?? ''} ${r.ratio ?? ''} ${r.bar} ${r.ok ? 'yes' : 'NO'}`,
        );
      process.exit(0);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
