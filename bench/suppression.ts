/**
 * B2 with a suppression list: the 10,000-recipient request for an account whose SMS
 * suppression list holds 100,000 numbers (1,000 of the request's recipients among them),
 * against the same request for an account without a list. Runs are interleaved so drift hits
 * both alike. Called from `npm run bench` with the API it started.
 */
import type { Connection } from 'mysql2/promise';
import { benchAccounts, interleavedSends, median, type BenchRow } from './lib.js';

const LIST = 100_000;

export async function benchSuppressionList(opts: {
  api: string;
  db: Connection;
  cli: (...args: string[]) => any;
  runs: number;
  numbers: (n: number, base: number) => string[];
}): Promise<BenchRow[]> {
  const { api, db, cli, runs, numbers } = opts;
  const keys = benchAccounts(cli, ['plain', 'listed'] as const);
  const [[{ id: listedId }]] = (await db.query(
    "SELECT id FROM accounts WHERE username = 'bench_listed'",
  )) as unknown as [Array<{ id: string }>];
  // Every run's recipients start at base 3,000,000 + i × 10,000: the list covers 1,000 of each run's.
  const listed = [
    ...Array.from({ length: runs }, (_, i) => numbers(1000, 3_000_000 + i * 10_000)).flat(),
    ...numbers(LIST, 10_000_000),
  ].slice(0, LIST);
  for (let i = 0; i < listed.length; i += 5000)
    await db.query('INSERT IGNORE INTO suppressions (account_id, channel, recipient, reason) VALUES ?', [
      listed.slice(i, i + 5000).map((n) => [listedId, 'sms', n, 'MANUAL']),
    ]);

  let refused = 0;
  const acks = await interleavedSends(
    api,
    keys,
    runs,
    (i) => numbers(10_000, 3_000_000 + i * 10_000),
    (who, data) => {
      if (who === 'listed') refused += data.filter((d) => d.reason === 'SUPPRESSED').length;
    },
  );
  const plain = median(acks.plain);
  const withList = median(acks.listed);
  return [
    {
      id: 'B2',
      metric: `10,000-recipient request, ${LIST.toLocaleString('en')}-entry suppression list, ack time (median)`,
      value: withList,
      unit: 'ms',
      baseline: plain,
      ratio: withList / plain,
      bar: '≤ 1.10× without a list',
      ok: withList / plain <= 1.1 && refused === runs * 1000,
    },
  ];
}
