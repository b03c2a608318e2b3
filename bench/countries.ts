/**
 * B2 with destination countries: the 10,000-recipient request for an account limited to 50
 * countries (its recipients' among them), against the same request for an account that may
 * send anywhere. Runs are interleaved so drift hits both alike. Called from `npm run bench`
 * with the API it started.
 */
import { getCountries } from 'libphonenumber-js';
import { benchAccounts, interleavedSends, median, type BenchRow } from './lib.js';

const COUNTRIES = 50;

export async function benchCountryList(opts: {
  api: string;
  cli: (...args: string[]) => any;
  runs: number;
  numbers: (n: number, base: number) => string[];
}): Promise<BenchRow[]> {
  const { api, cli, runs, numbers } = opts;
  const keys = benchAccounts(cli, ['anywhere', 'fifty'] as const);
  const fifty = ['ZM', ...getCountries().filter((c) => c !== 'ZM')].slice(0, COUNTRIES);
  cli('accounts', 'countries', '--username', 'bench_fifty', '--allow', fifty.join(','));
  // The API reads the setting anew within a second.
  await new Promise((r) => setTimeout(r, 1100));
  let accepted = 0;
  const acks = await interleavedSends(
    api,
    keys,
    runs,
    (i) => numbers(10_000, 4_000_000 + i * 10_000),
    (who, data) => {
      if (who === 'fifty') accepted += data.filter((d) => d.status === 'ACKNOWLEDGED').length;
    },
  );
  const anywhere = median(acks.anywhere);
  const limited = median(acks.fifty);
  return [
    {
      id: 'B2',
      metric: `10,000-recipient request, ${COUNTRIES}-country allow list, ack time (median)`,
      value: limited,
      unit: 'ms',
      baseline: anywhere,
      ratio: limited / anywhere,
      bar: '≤ 1.05× without a list',
      ok: limited / anywhere <= 1.05 && accepted === runs * 10_000,
    },
  ];
}
