/**
 * F1 and F2: chat-to-SMS fallback and send windows. Runs inside `npm run bench`, or alone:
 *   npm run build && npm run build:bench && node dist/bench-build/bench/fallback.js [--quick]
 *
 * F1: 10,000 chat messages (2,000 with --quick) with a fallback after 10 s, half of them
 * delivered in time (their receipts applied as a provider's would be) and half never: how long
 * after its due time each of the other half's SMS is created, by one worker process at the
 * default FALLBACK_POLL_MS.
 * F2: the answer time of a 10,000-recipient SMS send across 20 countries with a send window
 * (closed for some of them), against the same send without one, in the same run.
 */
import { pathToFileURL } from 'node:url';
import { createConnection } from 'mysql2/promise';
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

/** Twenty countries' mobile ranges, as calling code and leading digits. */
const COUNTRY_PREFIXES = [
  '26097',
  '1212555',
  '1416555',
  '447700',
  '49151',
  '336',
  '9198',
  '234803',
  '2547',
  '2782',
  '55119',
  '614',
  '8190',
  '86138',
  '7916',
  '5255',
  '62812',
  '63917',
  '2010',
  '346',
];

function spread(n: number, base: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const prefix = COUNTRY_PREFIXES[i % COUNTRY_PREFIXES.length]!;
    return prefix + String(base + i).padStart(12 - prefix.length, '0');
  });
}

export async function benchFallback(quick: boolean): Promise<BenchRow[]> {
  const chats = quick ? 2000 : 10_000;
  const runs = quick ? 3 : 5;
  const {
    name,
    api,
    env,
    cli,
    proc: apiProc,
  } = await startBenchApi(
    'fallback',
    { RATE_LIMIT_DEFAULT: '1000000/1', SANDBOX_DELIVERY_DELAY_MS: '600000' },
    { RUN_WORKERS: 'false', MAX_RECIPIENTS: '10000' },
  );
  apiProc.stderr?.on('data', (d: Buffer) => process.stderr.write(`[api] ${d}`));
  let worker: ReturnType<typeof startNode> | undefined;
  const rows: BenchRow[] = [];
  await waitHttp(`${api}/health/ready`);
  const db = await createConnection({ host: '127.0.0.1', user: 'root', database: name, timezone: 'Z' });
  // A body carrying a user_reference_id is answered once even when sent again after a dropped
  // keep-alive connection (the server closing an idle socket as the request goes out).
  const post = async (path: string, key: string, body: object) => {
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await fetch(`${api}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: JSON.stringify(body),
        });
        if (res.status !== 200) throw new Error(`fallback bench: status ${res.status}: ${await res.text()}`);
        return (await res.json()) as { reference?: string; api_reference?: string };
      } catch (err) {
        if (attempt >= 3 || !(err instanceof TypeError)) throw err;
      }
    }
  };
  try {
    cli('accounts', 'create', '--username', 'fallback', '--password', 'load-test-secret-1');
    for (const channel of ['sms', 'chat'])
      cli('accounts', 'credit', '--username', 'fallback', '--channel', channel, '--amount', '100000000');
    const key = cli(
      'keys',
      'create',
      '--username',
      'fallback',
      '--name',
      'bench',
      '--rate-limit',
      '1000000/1',
    ).key as string;

    // F2 first (no worker): the send's answer time with and without a window, alternating.
    const window = (() => {
      const h = new Date().getUTCHours();
      const hh = (x: number) => `${String((x + 24) % 24).padStart(2, '0')}:00`;
      return { from: hh(h - 4), to: hh(h + 4) };
    })();
    const timed = async (extra: object, base: number) => {
      const started = performance.now();
      await post('/api/v1/json/bulk/sms', key, {
        from: 'BENCH',
        to: spread(10_000, base),
        message: 'Sale',
        user_reference_id: `f2-${base}`,
        ...extra,
      });
      return performance.now() - started;
    };
    await timed({}, 0); // warm-up
    await timed({ send_window: window }, 20_000);
    const without: number[] = [];
    const withWindow: number[] = [];
    for (let i = 0; i < runs; i++) {
      without.push(await timed({}, 100_000 * (i + 1)));
      withWindow.push(await timed({ send_window: window }, 100_000 * (i + 1) + 50_000));
    }
    const [[deferred]] = (await db.query(
      'SELECT COUNT(*) AS n FROM messages WHERE send_at IS NOT NULL',
    )) as any;
    const a = median(withWindow);
    const b = median(without);
    rows.push({
      id: 'F2',
      metric: `10,000 recipients in 20 countries with a window (${Number(deferred.n)} deferred), answer`,
      value: Math.round(a),
      unit: 'ms',
      baseline: Math.round(b),
      ratio: Math.round((a / b) * 100) / 100,
      bar: '≤ 1.2× without',
      ok: a / b <= 1.2 && Number(deferred.n) > 0,
    });

    // F1: chat messages with a fallback after 10 s, half delivered in time.
    worker = startNode('dist/worker.js', [], { ...env });
    const refs: string[] = [];
    for (let i = 0; i < chats; i += 1000) {
      const answer = await post('/api/v1/json/bulk/chat', key, {
        username: 'fallback',
        password: 'load-test-secret-1',
        senderid: '260970000000',
        message: 'Your code is 4711',
        recipient: Array.from({ length: Math.min(1000, chats - i) }, (_, k) =>
          String(260_950_000_000 + i + k),
        ),
        fallback: { channel: 'sms', after_seconds: 10 },
        user_reference_id: `f1-${i}`,
      });
      refs.push(answer.reference!);
    }
    // Half delivered before their due time: the state a receipt leaves.
    await db.query(
      "UPDATE messages SET status = 'DELIVERED', fallback_due_at = NULL WHERE send_request_id IN (?) AND MOD(id, 2) = 0",
      [refs],
    );
    const [[pending]] = (await db.query(
      'SELECT COUNT(*) AS n, MAX(fallback_due_at) AS last FROM messages WHERE send_request_id IN (?) AND fallback_due_at IS NOT NULL',
      [refs],
    )) as any;
    const expected = Number(pending.n);
    const until = new Date(pending.last).getTime() + 60_000;
    let made = 0;
    while (Date.now() < until) {
      const [[c]] = (await db.query(
        'SELECT COUNT(*) AS n FROM messages f JOIN messages c ON c.id = f.fallback_of WHERE c.send_request_id IN (?)',
        [refs],
      )) as any;
      made = Number(c.n);
      if (made >= expected) break;
      await sleep(200);
    }
    // Due: the chat message's acceptance plus 10 s; created: the SMS's acceptance.
    const [lags] = (await db.query(
      `SELECT TIMESTAMPDIFF(MICROSECOND, c.created_at + INTERVAL 10 SECOND, f.created_at) / 1000 AS lag
         FROM messages f JOIN messages c ON c.id = f.fallback_of WHERE c.send_request_id IN (?)`,
      [refs],
    )) as any;
    const ms = (lags as Array<{ lag: string }>).map((r) => Number(r.lag));
    const complete = made >= expected && expected > 0;
    rows.push(
      {
        id: 'F1',
        metric: `${chats} chat msgs, fallback after 10 s, ${expected} undelivered: SMS p99 after due`,
        value: Math.round(percentile(ms, 99)),
        unit: 'ms',
        bar: '≤ 2000 ms',
        ok: complete && percentile(ms, 99) <= 2000,
      },
      {
        id: 'F1',
        metric: `the same: last SMS created after its due time (${made} made)`,
        value: Math.round(Math.max(...ms)),
        unit: 'ms',
        bar: '≤ 2000 ms',
        ok: complete && Math.max(...ms) <= 2000,
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
  benchFallback(process.argv.includes('--quick')).then(
    (rows) => {
      for (const r of rows)
        console.log(
          `${r.id.padEnd(4)}${r.metric.padEnd(76)}${`${r.value} ${r.unit}`.padEnd(12)}${r.baseline ?? ''} ${r.ratio ?? ''} ${r.bar} ${r.ok ? 'yes' : 'NO'}`,
        );
      process.exit(0);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
