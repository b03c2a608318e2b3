import type { Check } from './checks.js';
import type { LoadStats } from './load.js';

export interface Summary {
  at: string;
  machine: object;
  options: { minutes: number; rps: number; quick: boolean; redis_loss_seconds?: number };
  seconds: { load: number; drain: number; total: number };
  stats: LoadStats;
  rotations: number;
  rotationErrors: string[];
  callbacks: { attempts: number; refused_on_purpose: number; events_delivered: number; expected: number };
  smsc: { submits: number; binds: number };
  messages: Array<{ channel: string; status: string; n: number }>;
  ledger: Array<{ username: string; channel: string; balance: string; ledger: string; ok: boolean }>;
  cpu: Array<{ process: string; cpu_percent_of_one_core: number }>;
  memory: Array<{ process: string; peak_mb: number; warm_mb: number; end_mb: number; growth_mb: number }>;
  checks: Check[];
}

function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

const pad = (s: unknown, n: number) => String(s).padEnd(n);
const padl = (s: unknown, n: number) => String(s).padStart(n);

/** Prints the tables and returns the JSON written to soak/results/latest.json. */
export function printSummary(s: Summary): object {
  const { stats } = s;
  const byClass = { '2xx': 0, '4xx': {} as Record<string, number>, '5xx': 0, 'no answer': 0 };
  const byKind: Record<string, object> = {};
  console.log(
    `\nbulk-messaging soak: ${s.options.minutes} min at ${s.options.rps} req/s, 2 APIs + 2 workers; load ${s.seconds.load} s, drain ${s.seconds.drain} s, total ${s.seconds.total} s\n`,
  );
  console.log(
    `${pad('kind', 14)}${pad('answer', 30)}${padl('count', 8)}${padl('p50 ms', 9)}${padl('p99 ms', 9)}   (latency after the first 15 s)`,
  );
  for (const [kind, answers] of stats.answers) {
    const lat = stats.latencyMs.get(kind) ?? [];
    const p50 = Math.round(percentile(lat, 50));
    const p99 = Math.round(percentile(lat, 99));
    byKind[kind] = { answers: Object.fromEntries(answers), p50_ms: p50, p99_ms: p99 };
    let first = true;
    for (const [answer, n] of [...answers.entries()].sort()) {
      console.log(
        `${pad(first ? kind : '', 14)}${pad(answer, 30)}${padl(n, 8)}${padl(first ? p50 : '', 9)}${padl(first ? p99 : '', 9)}`,
      );
      first = false;
      if (answer === '200') byClass['2xx'] += n;
      else if (answer === 'network error') byClass['no answer'] += n;
      else if (answer.startsWith('5')) byClass['5xx'] += n;
      else byClass['4xx'][answer] = (byClass['4xx'][answer] ?? 0) + n;
    }
  }
  const fourxx = Object.entries(byClass['4xx'])
    .map(([a, n]) => `${a} ×${n}`)
    .join(', ');
  console.log(
    `\nrequests: ${stats.requests} — 2xx ${byClass['2xx']}; 4xx ${fourxx || 'none'}; 5xx ${byClass['5xx']}; no answer ${byClass['no answer']}`,
  );
  const w = stats.warmUpLatencyMs;
  console.log(
    `first 15 s (processes warming up): ${w.length} requests, p50 ${Math.round(percentile(w, 50))} ms, p99 ${Math.round(percentile(w, 99))} ms`,
  );
  console.log(
    `expected 401s after a key rotation: ${stats.rotated401} (${s.rotations} rotations); idempotent replays: ${stats.replays}; load ticks skipped (40 in flight): ${stats.skippedTicks}`,
  );
  console.log(
    `callbacks: ${s.callbacks.events_delivered} events delivered of ${s.callbacks.expected} expected, ${s.callbacks.attempts} POSTs (${s.callbacks.refused_on_purpose} answered 503 on purpose)`,
  );
  console.log(
    `CPU during the load (% of one core): ${s.cpu.map((c) => `${c.process} ${c.cpu_percent_of_one_core}`).join(', ')}`,
  );
  console.log(
    `RSS during the load (MB, peak / warm / end / growth): ${s.memory.map((m) => `${m.process} ${m.peak_mb} / ${m.warm_mb} / ${m.end_mb} / ${m.growth_mb}`).join(', ')}`,
  );

  console.log(
    `\n${pad('messages', 10)}${s.messages.map((m) => `${m.channel} ${m.status} ${m.n}`).join(' | ')}`,
  );
  console.log(
    `\n${pad('account', 18)}${pad('channel', 8)}${padl('balance', 20)}${padl('ledger sum', 20)}  ok`,
  );
  for (const l of s.ledger)
    console.log(
      `${pad(l.username, 18)}${pad(l.channel, 8)}${padl(l.balance, 20)}${padl(l.ledger, 20)}  ${l.ok ? 'yes' : 'NO'}`,
    );

  console.log(`\n${pad('check', 80)}${pad('value', 24)}${pad('expected', 16)}ok`);
  for (const c of s.checks)
    console.log(`${pad(c.check, 80)}${pad(c.value, 24)}${pad(c.expected, 16)}${c.ok ? 'yes' : 'NO'}`);
  if (stats.unexpected.length) {
    console.log('\nfirst unexpected answers:');
    for (const u of stats.unexpected.slice(0, 10))
      console.log(`  ${u.kind}: ${u.answer}${u.note ? ` (${u.note})` : ''}`);
  }

  return {
    at: s.at,
    machine: s.machine,
    options: s.options,
    seconds: s.seconds,
    requests: {
      total: stats.requests,
      by_class: byClass,
      by_kind: byKind,
      warm_up: {
        seconds: 15,
        requests: w.length,
        p50_ms: Math.round(percentile(w, 50)),
        p99_ms: Math.round(percentile(w, 99)),
      },
    },
    rotations: s.rotations,
    rotation_errors: s.rotationErrors,
    expected_401_after_rotation: stats.rotated401,
    replays: stats.replays,
    skipped_ticks: stats.skippedTicks,
    unexpected: stats.unexpected,
    callbacks: s.callbacks,
    smsc: s.smsc,
    messages: s.messages,
    ledger: s.ledger,
    cpu: s.cpu,
    memory: s.memory,
    checks: s.checks,
    passed: s.checks.every((c) => c.ok),
  };
}
