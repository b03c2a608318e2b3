/**
 * B10: another tenant's /balance during a big-body flood. Runs inside `npm run bench`, or alone:
 *   npm run build && npm run build:bench && node dist/bench-build/bench/big-bodies.js [--quick]
 *
 * A free test key (the default rate limit) posts big bodies as fast as 16 connections allow: the
 * largest its routes read (XML of 2,000 `<to>` elements or a root with 4,000 attributes, JSON of
 * 12,000 numbers) and the ones that stalled every tenant before their limits (60,000 root
 * attributes or 40,000 `<to>`, 650-840 KB of XML; 3 MB of JSON), while
 * a second tenant reads its balance with its key (8 connections). Each flood is compared with
 * the same load without it, quiet and flooded runs alternating. Bar: p50 ≤ 3× quiet (at least
 * 20 ms), p90 ≤ 100 ms.
 */
import http from 'node:http';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { createConnection } from 'mysql2/promise';
import { bodyLimitsFor } from '../src/config/body-limits.js';
import { dropBenchState, median, sleep, startBenchApi, stop, waitHttp, type BenchRow } from './lib.js';

const FLOOD_CONNECTIONS = 16;

interface FloodBody {
  path: string;
  type: string;
  body: Buffer;
}

/**
 * What a free test key can post: the largest bodies its routes read (sized for
 * TEST_MAX_RECIPIENTS, 1,000), and the review's bodies, now refused by their Content-Length.
 */
function floodBodies(): Record<'XML' | 'JSON', FloodBody[]> {
  const limits = bodyLimitsFor(1000);
  const xml = (body: string) => ({
    path: '/api/v1/xml/bulk/sms',
    type: 'application/xml',
    body: Buffer.from(body),
  });
  const json = (body: string) => ({
    path: '/api/v1/json/bulk/sms',
    type: 'application/json',
    body: Buffer.from(body),
  });
  const fields = '<from>ACME</from><message>x</message><source>API</source>';
  const attrs = (n: number) => Array.from({ length: n }, (_, i) => ` a${i}="1"`).join('');
  const manyTo = (n: number) => `<request>${fields}${'<to>260971234567</to>'.repeat(n)}</request>`;
  const sendTo = (n: number) =>
    JSON.stringify({ from: 'ACME', message: 'x', to: Array(n).fill('260971234567') });
  const readable = [
    [manyTo(2000), limits.xml],
    [`<request${attrs(4000)}>${fields}<to>260971234567</to></request>`, limits.xml],
    [sendTo(12_000), limits.send],
  ] as const;
  for (const [body, limit] of readable)
    if (body.length > limit)
      throw new Error(`a flood body of ${body.length} bytes is over its limit ${limit}`);
  return {
    XML: [
      xml(readable[0][0]),
      xml(readable[1][0]),
      xml(`<request${attrs(60_000)}>${fields}<to>260971234567</to></request>`),
      xml(manyTo(40_000)),
    ],
    JSON: [json(readable[2][0]), json(sendTo(200_000))],
  };
}

/** `connections` clients posting `bodies` in turn until `ms` is over; answers counted by status. */
async function flood(api: string, key: string, bodies: FloodBody[], connections: number, ms: number) {
  const until = Date.now() + ms;
  const statuses = new Map<number, number>();
  let bytes = 0;
  const one = (b: FloodBody) =>
    new Promise<void>((resolve) => {
      const req = http.request(
        `${api}${b.path}`,
        {
          method: 'POST',
          headers: { 'content-type': b.type, 'content-length': b.body.length, 'x-api-key': key },
        },
        (res) => {
          statuses.set(res.statusCode ?? 0, (statuses.get(res.statusCode ?? 0) ?? 0) + 1);
          res.resume();
          res.on('end', resolve);
          res.on('error', () => resolve());
        },
      );
      // A refused body is cut off by the server: the write then fails, which is expected.
      req.on('error', () => {
        statuses.set(0, (statuses.get(0) ?? 0) + 1);
        resolve();
      });
      req.end(b.body);
      bytes += b.body.length;
    });
  await Promise.all(
    Array.from({ length: connections }, async (_, c) => {
      for (let i = c; Date.now() < until; i++) await one(bodies[i % bodies.length]!);
    }),
  );
  return { statuses: Object.fromEntries(statuses), bytes };
}

export async function benchBigBodies(quick: boolean): Promise<BenchRow[]> {
  const seconds = quick ? 4 : 10;
  const passes = quick ? 1 : 3;
  const { name, api, cli, proc } = await startBenchApi('bodies', { RUN_WORKERS: 'false' });
  const rows: BenchRow[] = [];
  const db = await createConnection({ host: '127.0.0.1', user: 'root', timezone: 'Z' });
  try {
    await waitHttp(`${api}/health/ready`);
    cli('accounts', 'create', '--username', 'victim', '--password', 'tenant-secret-pass-1');
    cli('accounts', 'create', '--username', 'attacker', '--password', 'other-secret-pass-1');
    const victimKey = cli(
      'keys',
      'create',
      '--username',
      'victim',
      '--name',
      'main',
      '--rate-limit',
      '1000000/1',
    ).key as string;
    const attackerKey = cli('keys', 'create', '--username', 'attacker', '--name', 'free', '--mode', 'test')
      .key as string;
    const victimLoad = async (secs: number) => {
      const r = await autocannon({
        url: `${api}/api/v1/json/balance`,
        connections: 8,
        duration: secs,
        headers: { 'x-api-key': victimKey },
      });
      return { p50: r.latency.p50, p90: r.latency.p90, bad: r.non2xx + r.errors };
    };
    const bodies = floodBodies();
    await victimLoad(1); // warm-up
    for (const kind of ['XML', 'JSON'] as const) {
      const quiet: Array<Awaited<ReturnType<typeof victimLoad>>> = [];
      const flooded: Array<Awaited<ReturnType<typeof victimLoad>>> = [];
      const answers: Array<Record<string, number>> = [];
      let floodBytes = 0;
      for (let pass = 0; pass < passes; pass++) {
        quiet.push(await victimLoad(seconds));
        const attack = flood(api, attackerKey, bodies[kind], FLOOD_CONNECTIONS, (seconds + 2) * 1000);
        await sleep(1000);
        flooded.push(await victimLoad(seconds));
        const done = await attack;
        answers.push(done.statuses);
        floodBytes += done.bytes;
        // The attacker's key is blocked for the rest of its window: let it end between passes.
        await sleep(1100);
      }
      const q50 = median(quiet.map((r) => r.p50));
      const q90 = median(quiet.map((r) => r.p90));
      const f50 = median(flooded.map((r) => r.p50));
      const f90 = median(flooded.map((r) => r.p90));
      const bad = flooded.reduce((n, r) => n + r.bad, 0);
      console.log(
        `B10 ${kind} flood: tenant /balance p50 quiet ${q50} ms, during ${f50} ms; p90 quiet ${q90} ms, during ${f90} ms; ` +
          `attacker's answers by status ${JSON.stringify(answers)}, ${Math.round(floodBytes / 1e6 / passes / (seconds + 2))} MB/s offered`,
      );
      rows.push({
        id: 'B10',
        metric: `another tenant's /balance p50 during a big-body flood (${kind})`,
        value: f50,
        unit: 'ms',
        baseline: q50,
        ratio: f50 / Math.max(1, q50),
        bar: '≤ 3× quiet (at least 20 ms)',
        ok: f50 <= Math.max(20, 3 * q50) && bad === 0,
      });
      rows.push({
        id: 'B10',
        metric: `another tenant's /balance p90 during a big-body flood (${kind})`,
        value: f90,
        unit: 'ms',
        baseline: q90,
        ratio: f90 / Math.max(1, q90),
        bar: '≤ 100 ms',
        ok: f90 <= 100 && bad === 0,
      });
    }
  } finally {
    await stop(proc);
    await dropBenchState(db, name);
    await db.end();
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  benchBigBodies(process.argv.includes('--quick')).then(
    (rows) => {
      for (const r of rows)
        console.log(
          `${r.id}  ${r.metric.padEnd(64)} ${`${r.value} ${r.unit}`.padEnd(10)} ${r.baseline === undefined ? '' : `quiet ${r.baseline}`.padEnd(12)} ${r.bar} ${r.ok ? 'yes' : 'NO'}`,
        );
      process.exit(0);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
