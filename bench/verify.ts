/**
 * V1: what a verification costs the API next to what it is built on. A start (per-number cap and
 * pumping guard, then a single-recipient send through the pipeline that stores the
 * verification with its message and looks for older pending ones to the number) against a
 * single-recipient B1 send; a check (the code digested, then compared and the attempt written
 * in one round trip) against a balance read. CPU of the API process per 2xx answer, runs
 * alternated so drift hits both alike. Called from `npm run bench` with the API it started.
 */
import autocannon from 'autocannon';
import { cpuMs, median, type BenchRow } from './lib.js';

const CONNECTIONS = 50;
/** Wrong checks each prepared verification takes before the fifth closes it: every one a 200. */
const CHECKS_EACH = 5;

interface Run {
  cpuPerAnswer: number;
  rps: number;
  bad: number;
}

async function measure(pid: number, options: autocannon.Options): Promise<Run> {
  const cpu0 = cpuMs(pid);
  const r = await autocannon({ connections: CONNECTIONS, ...options });
  const answers = Math.max(1, r['2xx']);
  if (r.non2xx + r.errors > 0)
    console.warn(`V1: ${r.non2xx} non-2xx, ${r.errors} errors: ${JSON.stringify(r.statusCodeStats)}`);
  return { cpuPerAnswer: (cpuMs(pid) - cpu0) / answers, rps: r.requests.average, bad: r.non2xx + r.errors };
}

export async function benchVerify(opts: {
  api: string;
  pid: number;
  cli: (...args: string[]) => any;
  quick: boolean;
}): Promise<BenchRow[]> {
  const { api, pid, cli } = opts;
  const seconds = opts.quick ? 3 : 8;
  const runs = 3;
  cli('accounts', 'create', '--username', 'bench_verify', '--password', 'load-test-secret-1');
  cli('accounts', 'credit', '--username', 'bench_verify', '--channel', 'sms', '--amount', '100000000');
  cli('accounts', 'price', '--username', 'bench_verify', '--channel', 'sms', '--cost-per-unit', '0.01');
  // Monitor mode: the guard does all its work on every start, but the checks' closed
  // verifications (never approved) cannot block the country the starts go to.
  cli('accounts', 'fraud', '--username', 'bench_verify', '--monitor');
  const key = (mode: string) =>
    cli(
      'keys',
      'create',
      '--username',
      'bench_verify',
      '--name',
      `bench-${mode}`,
      '--mode',
      mode,
      '--rate-limit',
      '1000000/1',
    ).key as string;
  const live = key('live');
  const test = key('test');
  const json = { 'content-type': 'application/json' };

  // Every start to a number of its own, each of a prefix of its own: the load is of starts, not
  // of refusals by the per-number cap or the pumping guard.
  let n = 0;
  const nextNumber = () => `260${String(1_000_000 + n++).padStart(7, '0')}123`;
  const startRun = () =>
    measure(pid, {
      url: `${api}/api/v1/json/verify`,
      method: 'POST',
      duration: seconds,
      headers: { ...json, 'x-api-key': live },
      requests: [
        {
          setupRequest: (req: any) => ({ ...req, body: JSON.stringify({ to: nextNumber(), from: 'BENCH' }) }),
        },
      ],
    });
  const sendRun = () =>
    measure(pid, {
      url: `${api}/api/v1/json/bulk/sms`,
      method: 'POST',
      duration: seconds,
      headers: { ...json, 'x-api-key': live },
      body: JSON.stringify({ from: 'BENCH', to: '260971234567', message: 'Your code is 123456' }),
    });

  // Checks: verifications started beforehand (test key: nothing queued), each checked
  // CHECKS_EACH times with a wrong code, so every answer is a 200 that locks, compares and writes.
  async function prepared(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, count - i) }, async () => {
          const res = await fetch(`${api}/api/v1/json/verify`, {
            method: 'POST',
            headers: { ...json, 'x-api-key': test },
            body: JSON.stringify({ to: nextNumber() }),
          });
          const body = (await res.json()) as { verification_id?: string };
          if (!body.verification_id)
            throw new Error(`V1: a start for the checks answered ${res.status} ${JSON.stringify(body)}`);
          return body.verification_id;
        }),
      );
      ids.push(...batch);
    }
    return ids;
  }
  const checkRun = async (amount: number) => {
    const ids = await prepared(Math.ceil(amount / CHECKS_EACH));
    let k = 0;
    return measure(pid, {
      url: `${api}/api/v1/json/verify`,
      method: 'POST',
      amount,
      headers: { ...json, 'x-api-key': test },
      requests: [
        {
          setupRequest: (req: any) => {
            const id = ids[Math.floor(k++ / CHECKS_EACH)];
            return {
              ...req,
              path: `/api/v1/json/verify/${id}/check`,
              body: JSON.stringify({ code: '0000' }),
            };
          },
        },
      ],
    });
  };
  const balanceRun = (amount: number) =>
    measure(pid, {
      url: `${api}/api/v1/json/balance`,
      method: 'GET',
      amount,
      headers: { 'x-api-key': live },
    });

  await startRun();
  await sendRun(); // warm-up
  const starts: Run[] = [];
  const sends: Run[] = [];
  const checks: Run[] = [];
  const balances: Run[] = [];
  const checksPerRun = opts.quick ? 2000 : 5000;
  for (let i = 0; i < runs; i++) {
    sends.push(await sendRun());
    starts.push(await startRun());
    balances.push(await balanceRun(checksPerRun));
    checks.push(await checkRun(checksPerRun));
  }
  const row = (metric: string, app: Run[], base: Run[], bar: number): BenchRow => {
    const value = median(app.map((r) => r.cpuPerAnswer)) * 1000;
    const baseline = median(base.map((r) => r.cpuPerAnswer)) * 1000;
    const bad = [...app, ...base].reduce((s, r) => s + r.bad, 0);
    return {
      id: 'V1',
      metric,
      value,
      unit: 'µs',
      baseline,
      ratio: value / baseline,
      bar: `≤ ${bar}× baseline`,
      ok: value / baseline <= bar && bad === 0,
    };
  };
  return [
    // A start is a send and one round trip more (the cap and the guard in one call to Redis; the
    // pending ones to the number are read with the send's COMMIT); a check is one round trip, as a
    // balance read is, with a body to validate and a code to digest.
    row('verification start, API CPU per start (baseline: a single-recipient send)', starts, sends, 1.3),
    row('verification check, API CPU per check (baseline: a balance read)', checks, balances, 1),
  ];
}
