/**
 * L1: the short-link redirect against /health/live on the same API process. Runs inside
 * `npm run bench` (`--only L1`), or alone:
 *   npm run build && npm run build:bench && node dist/bench-build/bench/links.js [--quick]
 *
 * One SMS sent with shorten_links gives a code; then, alternating so drift hits both alike,
 * GET /l/<code> (a browser's User-Agent: each answer a counted click) and GET /health/live at 50
 * connections. The redirect answers from the row it read (kept 10 s) and counts the click in
 * memory; the bar is 0.9× the probe's rate, at the default LOG_LEVEL. The clicks written once the runs end are checked against the 302s answered.
 */
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { createConnection } from 'mysql2/promise';
import { dropBenchState, median, sleep, stop, waitHttp, startBenchApi, type BenchRow } from './lib.js';

const BROWSER =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

export async function benchLinks(quick: boolean): Promise<BenchRow[]> {
  const seconds = quick ? 3 : 8;
  const runs = quick ? 2 : 3;
  const bench = await startBenchApi(
    'links',
    {
      RUN_WORKERS: 'false',
      RATE_LIMIT_DEFAULT: '1000000/1',
      SMPP_SERVER_PORT: '0',
      // Only written into the texts: the bench follows the code on this API directly.
      SHORT_LINK_BASE_URL: 'https://s.example/l',
    },
    // The API at the default level, not the benches' `error`: what a redirect logs is part of its cost.
    { LOG_LEVEL: 'info' },
  );
  const { name, api, cli } = bench;
  const db = await waitHttp(`${api}/health/ready`, 180_000).then(
    () => createConnection({ host: '127.0.0.1', user: 'root', database: name, timezone: 'Z' }),
    async (err: unknown) => {
      await stop(bench.proc);
      throw err;
    },
  );
  try {
    cli('accounts', 'create', '--username', 'links', '--password', 'load-test-secret-1');
    cli('accounts', 'credit', '--username', 'links', '--channel', 'sms', '--amount', '1000');
    cli('accounts', 'price', '--username', 'links', '--channel', 'sms', '--cost-per-unit', '0.01');
    const key = cli('keys', 'create', '--username', 'links', '--name', 'bench').key as string;
    const send = () =>
      fetch(`${api}/api/v1/json/bulk/sms`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({
          from: 'BENCH',
          to: '260971234567',
          message: 'Your order: https://shop.example/orders/1234',
          shorten_links: true,
        }),
      });
    // Once more on a new connection: the one waitHttp kept alive may have closed while the CLI ran.
    const sent = await send().catch(send);
    if (sent.status !== 200) throw new Error(`L1: the send answered ${sent.status}: ${await sent.text()}`);
    const [[{ code }]] = (await db.query('SELECT code FROM short_links')) as unknown as [
      Array<{ code: string }>,
    ];

    const load = async (path: string, expected: number) => {
      const r = await autocannon({
        url: `${api}${path}`,
        connections: 50,
        duration: seconds,
        headers: { 'user-agent': BROWSER },
      });
      const answered = expected === 302 ? r['3xx'] : r['2xx'];
      return { rps: answered / seconds, answered, wrong: r.requests.total - answered + r.errors };
    };
    await load(`/l/${code}`, 302); // warm-up
    await load('/health/live', 200);
    const redirect: number[] = [];
    const live: number[] = [];
    let redirects = 0;
    let wrong = 0;
    for (let i = 0; i < runs; i++) {
      const l = await load('/health/live', 200);
      const r = await load(`/l/${code}`, 302);
      live.push(l.rps);
      redirect.push(r.rps);
      redirects += r.answered;
      wrong += l.wrong + r.wrong;
    }
    // Clicks are written a second after they are counted.
    await sleep(2500);
    const [[{ clicks }]] = (await db.query('SELECT clicks FROM short_links WHERE code = ?', [
      code,
    ])) as unknown as [Array<{ clicks: number }>];
    const rps = median(redirect);
    const base = median(live);
    return [
      {
        id: 'L1',
        metric: 'short-link redirect, req/s (50 conns), against /health/live',
        value: rps,
        unit: 'req/s',
        baseline: base,
        ratio: rps / base,
        bar: '≥ 0.9× /health/live',
        // Every click of the measured runs and the warm-up counted (the warm-up's are in the row too).
        ok: rps / base >= 0.9 && wrong === 0 && Number(clicks) >= redirects,
      },
    ];
  } finally {
    await stop(bench.proc);
    await dropBenchState(db, name);
    await db.end();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  benchLinks(process.argv.includes('--quick')).then(
    (rows) => {
      for (const r of rows)
        console.log(
          `${r.id}  ${r.metric}  ${Math.round(r.value)} ${r.unit}  baseline ${Math.round(r.baseline ?? 0)}  ${(r.ratio ?? 0).toFixed(2)}×  ${r.bar} ${r.ok ? 'yes' : 'NO'}`,
        );
      process.exit(0);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
