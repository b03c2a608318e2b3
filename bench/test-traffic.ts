/**
 * T1: test keys cannot slow a live send down. Runs inside `npm run bench`, or alone:
 *   npm run build && npm run build:bench && node dist/bench-build/bench/test-traffic.js [--quick]
 *
 * One account sends single-recipient live SMS at a steady pace; its hand-over latency (from
 * acceptance to SENT, as the messages table records them) is measured without any other load,
 * then while another account floods the API with 1,000-recipient test sends (30,000 test
 * messages, as many as three of the largest live requests, with TEST_DAILY_MESSAGES raised to
 * let them all in). Quiet and flooded passes alternate, so the machine's other load weighs on
 * both alike; the figures are medians over the passes. One API (RUN_WORKERS=false) and one
 * worker process, sandbox transports.
 */
import { pathToFileURL } from 'node:url';
import { createConnection } from 'mysql2/promise';
import {
  dropBenchState,
  median,
  percentile,
  sleep,
  startBenchApi,
  startNode,
  stop,
  waitHttp,
  type BenchRow,
} from './lib.js';

const FLOOD_REQUESTS = 30;
const FLOOD_RECIPIENTS = 1000;
const LIVE_PER_SECOND = 10;

export async function benchTestTraffic(quick: boolean): Promise<BenchRow[]> {
  const seconds = quick ? 4 : 10;
  const passes = quick ? 1 : 3;
  const {
    name,
    api,
    env,
    cli,
    proc: apiProc,
  } = await startBenchApi(
    'testflood',
    { RATE_LIMIT_DEFAULT: '1000000/1', SANDBOX_DELIVERY_DELAY_MS: '200' },
    { RUN_WORKERS: 'false', TEST_DAILY_MESSAGES: String(passes * FLOOD_REQUESTS * FLOOD_RECIPIENTS) },
  );
  let worker: ReturnType<typeof startNode> | undefined;
  const rows: BenchRow[] = [];
  const db = await (async () => {
    await waitHttp(`${api}/health/ready`);
    return createConnection({ host: '127.0.0.1', user: 'root', database: name, timezone: 'Z' });
  })();
  const post = async (key: string, body: object) => {
    const res = await fetch(`${api}/api/v1/json/bulk/sms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as { api_reference?: string };
    return { status: res.status, ref: json.api_reference };
  };
  try {
    cli('accounts', 'create', '--username', 'live', '--password', 'steady-sender-pass-1');
    cli('accounts', 'credit', '--username', 'live', '--channel', 'sms', '--amount', '100000');
    cli('accounts', 'price', '--username', 'live', '--channel', 'sms', '--cost-per-unit', '0.01');
    cli('accounts', 'create', '--username', 'tester', '--password', 'flooding-sender-pass-2');
    const liveKey = cli('keys', 'create', '--username', 'live', '--name', 'live').key as string;
    const testKey = cli('keys', 'create', '--username', 'tester', '--name', 'ci', '--mode', 'test')
      .key as string;
    worker = startNode('dist/worker.js', [], { ...env, SANDBOX_DELIVERY_DELAY_MS: '200' });
    await sleep(3000);

    /** Live sends at a steady pace for `secs`; answers their api_references. */
    const livePhase = async (secs: number, tag: string) => {
      const refs: string[] = [];
      const sends: Array<Promise<void>> = [];
      for (let i = 0; i < secs * LIVE_PER_SECOND; i++) {
        sends.push(
          post(liveKey, {
            from: 'LIVE',
            to: [String(260971000000 + i)],
            message: `Your code is ${i}`,
            user_reference_id: `${tag}-${i}`,
          }).then((r) => {
            if (r.ref) refs.push(r.ref);
          }),
        );
        await sleep(1000 / LIVE_PER_SECOND);
      }
      await Promise.all(sends);
      return refs;
    };
    /** Each live message's time from acceptance to SENT, in ms, once all are SENT (or 60 s pass). */
    const latencies = async (refs: string[]) => {
      const until = Date.now() + 60_000;
      for (;;) {
        const got = (await db.query(
          `SELECT TIMESTAMPDIFF(MICROSECOND, created_at, sent_at) / 1000 AS ms FROM messages
            WHERE send_request_id IN (?) AND sent_at IS NOT NULL`,
          [refs],
        )) as any;
        const ms = (got[0] as Array<{ ms: string }>).map((r) => Number(r.ms));
        if (ms.length >= refs.length || Date.now() > until) return { ms, missing: refs.length - ms.length };
        await sleep(250);
      }
    };
    const flood = async (pass: number) => {
      let accepted = 0;
      let refused = 0;
      await Promise.all(
        Array.from({ length: FLOOD_REQUESTS }, async (_, r) => {
          const base = 260972000000 + pass * 100_000 + r * FLOOD_RECIPIENTS;
          const to = Array.from({ length: FLOOD_RECIPIENTS }, (_, i) => String(base + i));
          const res = await post(testKey, { from: 'TEST', to, message: 'Load test, please ignore' });
          if (res.status === 200) accepted += FLOOD_RECIPIENTS;
          else refused++;
        }),
      );
      return { accepted, refused };
    };

    await latencies(await livePhase(1, 'warm'));
    const quiet: number[][] = [];
    const flooded: number[][] = [];
    let missing = 0;
    let floodAccepted = 0;
    let floodRefused = 0;
    for (let pass = 0; pass < passes; pass++) {
      const q = await latencies(await livePhase(seconds, `quiet${pass}`));
      quiet.push(q.ms);
      missing += q.missing;
      const flooding = flood(pass);
      await sleep(500); // the flood's first requests are in
      const f = await latencies(await livePhase(seconds, `flood${pass}`));
      flooded.push(f.ms);
      missing += f.missing;
      const { accepted, refused } = await flooding;
      floodAccepted += accepted;
      floodRefused += refused;
    }
    const quietP50 = median(quiet.map((ms) => median(ms)));
    const floodP50 = median(flooded.map((ms) => median(ms)));
    const quietP95 = median(quiet.map((ms) => percentile(ms, 95)));
    const floodP95 = median(flooded.map((ms) => percentile(ms, 95)));
    console.log(
      `T1 per pass, live hand-over p50 quiet: ${quiet.map((ms) => Math.round(median(ms))).join(', ')} ms; flooded: ${flooded.map((ms) => Math.round(median(ms))).join(', ')} ms; ${floodAccepted} test messages accepted, ${floodRefused} test requests refused`,
    );
    const ratio = floodP50 / Math.max(1, quietP50);
    rows.push(
      {
        id: 'T1',
        metric: 'live SMS hand-over p50 while another account floods test sends',
        value: floodP50,
        unit: 'ms',
        baseline: quietP50,
        ratio,
        bar: '≤ 1.5× without the flood',
        ok: ratio <= 1.5 && missing === 0 && floodAccepted > 0,
      },
      {
        id: 'T1',
        metric: 'live SMS hand-over p95 while another account floods test sends',
        value: floodP95,
        unit: 'ms',
        baseline: quietP95,
        ratio: floodP95 / Math.max(1, quietP95),
        bar: '',
        ok: missing === 0,
      },
      {
        id: 'T1',
        metric: `test messages accepted during the floods (${passes} × ${FLOOD_REQUESTS} requests of ${FLOOD_RECIPIENTS})`,
        value: floodAccepted,
        unit: 'msgs',
        bar: '',
        ok: true,
      },
    );
  } finally {
    await stop(worker);
    await stop(apiProc);
    await dropBenchState(db, name);
    await db.end();
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  benchTestTraffic(process.argv.includes('--quick')).then(
    (rows) => {
      for (const r of rows)
        console.log(
          `${r.id}  ${r.metric.padEnd(70)} ${`${Math.round(r.value * 10) / 10} ${r.unit}`.padEnd(14)} ${r.baseline === undefined ? '' : `baseline ${Math.round(r.baseline * 10) / 10}`.padEnd(16)} ${r.ratio === undefined ? '' : `${Math.round(r.ratio * 100) / 100}×`.padEnd(8)} ${r.bar} ${r.ok ? 'yes' : 'NO'}`,
        );
      process.exit(0);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
