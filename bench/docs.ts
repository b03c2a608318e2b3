/**
 * The figures the docs quote from the committed full bench run: the "Latest figures" table of
 * docs/performance.md and the capacity tables of docs/operations/scaling.md are made here from
 * bench/results/latest.json (the partition rows, until a full run has them, from
 * bench/results/partitions.json), between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->` lines.
 * A full `npm run bench` rewrites them; `npm run docs:bench` does so from the committed file,
 * and a test fails while a page differs from what this makes.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { retentionSettings } from '../src/config/settings/retention.js';
import type { BenchRow } from './lib.js';

export interface BenchRun {
  machine: {
    cores: number;
    cpu?: string;
    memory_gb: number;
    node: string;
    runs: number;
    seconds: number;
    /** `SELECT VERSION()`, the buffer pool and Redis's version: absent from runs before they were recorded. */
    mysql?: string;
    buffer_pool_mb?: number;
    redis?: string;
    /** The 1-minute load average around a run made beside other work (absent: a quiet machine). */
    load_average?: number;
  };
  at: string;
  results: BenchRow[];
}

export const LATEST = 'bench/results/latest.json';
/**
 * The newest `npm run bench -- --only B8P` run, committed: the capacity guide quotes its B8P
 * rows (a day's partition dropped, the conversion) while the full run has none.
 */
export const PARTITION_RUN = 'bench/results/partitions.json';
export const PAGES = { performance: 'docs/performance.md', scaling: 'docs/operations/scaling.md' } as const;

/** The bench row whose id matches and whose metric starts with (or matches) the given text. */
function row(run: BenchRun, id: string, metric: string | RegExp): BenchRow {
  const found = run.results.find(
    (r) => r.id === id && (typeof metric === 'string' ? r.metric.startsWith(metric) : metric.test(r.metric)),
  );
  if (!found) throw new Error(`${LATEST} has no ${id} row "${String(metric)}"`);
  return found;
}

/** The run's row, or undefined when the run did not measure it (a bench added since). */
function rowIf(run: BenchRun, id: string, metric: RegExp): BenchRow | undefined {
  return run.results.find((r) => r.id === id && metric.test(r.metric));
}

/** A number as the docs print it: thousands grouped, at most one decimal. */
export function num(n: number, decimals = 1): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: decimals });
}

/** A number rounded to two significant figures, for an "about". */
export function about(n: number): string {
  if (n === 0) return '0';
  const step = 10 ** (Math.floor(Math.log10(Math.abs(n))) - 1);
  return num(Math.round(n / step) * step, 1);
}

/** Bytes in the largest unit that keeps the figure at 1 or more: two significant figures below 10. */
export function bytes(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  while (n >= 1000 && i < units.length - 1) {
    n /= 1000;
    i++;
  }
  return `${n < 10 ? num(n, 1) : num(Math.round(n), 0)} ${units[i]}`;
}

/** A duration in seconds as minutes, hours or days, whichever reads shortest. */
export function duration(seconds: number): string {
  const minutes = seconds / 60;
  const hours = minutes / 60;
  if (minutes < 1) return `${Math.max(1, Math.round(seconds))} seconds`;
  if (minutes < 90) return `${Math.round(minutes)} minutes`;
  if (hours < 48) return `${hours < 10 ? num(hours, 1) : num(Math.round(hours), 0)} hours`;
  return `${num(Math.round(hours / 24), 0)} days`;
}

/** The whole number the pattern captures in a metric's text, such as the 5,000,000 of "seed 5,000,000 old messages". */
function countIn(metric: string, pattern: RegExp): number {
  const m = pattern.exec(metric);
  if (!m) throw new Error(`no count in "${metric}"`);
  return Number(m[1].replace(/,/g, ''));
}

/** A paragraph broken into lines of at most 96 characters, as the pages' prose is. */
export function wrap(text: string, width = 96): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line].join('\n');
}

/** The processor as a reader names it: "Intel(R) Xeon(R) Processor" is an Intel Xeon. */
function cpuName(run: BenchRun): string {
  const model = (run.machine.cpu ?? 'unknown processor').replace(/\((R|TM)\)/gi, '');
  return model
    .replace(/\s+(Processor|CPU)\b.*$/i, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

/** The database and Redis servers of the run: "MariaDB 10.11 with a 128 MB buffer pool, Redis 7". */
export function serversText(run: BenchRun): string {
  const { mysql, buffer_pool_mb: pool, redis } = run.machine;
  if (!mysql || !pool || !redis)
    return 'MariaDB 10.11 at its Debian defaults with a 128 MB buffer pool, Redis 7';
  const [release] = mysql.split('-');
  const engine = /mariadb/i.test(mysql) ? 'MariaDB' : 'MySQL';
  return `${engine} ${release.split('.').slice(0, 2).join('.')} with a ${num(pool, 0)} MB buffer pool, Redis ${redis.split('.')[0]}`;
}

function machineText(run: BenchRun): string {
  const day = run.at.slice(0, 10);
  const minutes = Math.round(run.machine.seconds / 60);
  return wrap(
    `The full \`npm run bench\` of ${day} on a quiet ${run.machine.cores}-core ${cpuName(run)} VM ` +
      `(Node ${run.machine.node}, ${serversText(run)}, nothing else running; medians of ${run.machine.runs} runs, ${minutes} minutes), as written to ` +
      '`bench/results/latest.json`, which is committed: the [capacity guide](operations/scaling.md#capacity) quotes it.',
  );
}

/** docs/performance.md: every row of the run, as `npm run bench` printed it. */
function latestFigures(run: BenchRun): string {
  const value = (r: BenchRow) =>
    Number.isNaN(r.value) ? '' : `${num(r.value)}${r.unit ? ` ${r.unit}` : ''}`;
  const baseline = (r: BenchRow) =>
    r.baseline === undefined ? '' : `${num(r.baseline)}${r.ratio === undefined ? '' : ` (${r.ratio}×)`}`;
  const met = (r: BenchRow) => (!r.bar || r.bar.startsWith('informational') ? '' : r.ok ? 'yes' : 'no');
  return [
    machineText(run),
    table(
      ['id', 'row', 'figure', 'baseline', 'bar', 'met'],
      run.results.map((r) => [r.id, r.metric, value(r), baseline(r), r.bar, met(r)]),
    ),
  ].join('\n\n');
}

/** What the capacity guide derives from the run, each from the row it names. */
function capacityFigures(run: BenchRun) {
  const cpuPerSend = row(run, 'B1', 'single-recipient send, API CPU per accepted send');
  const perCore = 1e6 / cpuPerSend.value;
  const bulk = row(run, 'B2', '10,000-recipient request, recipients/s').value;
  const oneWorker = row(run, 'B3', 'dispatch to SMPP peer, one worker').value;
  const mysqlSingle = row(run, 'B9', 'MySQL bytes per delivered message, single-recipient sends').value;
  const redisSingle = row(run, 'B9', 'Redis memory per queued message, single-recipient sends').value;
  const redisBulk = row(run, 'B9', 'Redis memory per queued message, one 10,000-recipient request').value;
  const pruneBeside = row(run, 'B8', 'prune rate beside B1').value;
  const pruneAlone = row(run, 'B8', 'prune rate alone').value;
  return {
    cpuPerSend,
    perCore,
    bulk,
    oneWorker,
    mysqlSingle,
    redisSingle,
    redisBulk,
    pruneBeside,
    pruneAlone,
  };
}

/** The share of what an API core or a worker measured that the plan counts on. */
const HEADROOM = 0.75;
/** Planned peak as a multiple of the day's average rate. */
const PEAK = 10;

function capacityTable(run: BenchRun): string {
  const f = capacityFigures(run);
  const apiShare = row(run, 'B1', 'single-recipient send, API process CPU, % of one core');
  const reqs = row(run, 'B1', 'single-recipient send, req/s');
  const ack = row(run, 'B2', '10,000-recipient request, ack time (median)');
  const receipts = row(run, 'B3', 'delivery receipts applied during B3');
  const twoWorkers = row(run, 'B3', 'dispatch to SMPP peer, two workers');
  const meanAtSmsc = /^SMSC \d+ of \d+ .*mean/;
  const cap = countIn(row(run, 'B7', meanAtSmsc).metric, /cap (\d+) TPS/);
  const smscs = run.results.filter((r) => r.id === 'B7' && meanAtSmsc.test(r.metric));
  const mysqlBulk = row(run, 'B9', 'MySQL bytes per delivered message, one 10,000-recipient request');
  const allocated = row(run, 'B9', 'MySQL bytes allocated per delivered message');
  const seed = row(run, 'B8', 'seed ');
  const seeded = countIn(seed.metric, /seed ([\d,]+)/);
  const p99 = row(run, 'B8', 'B1 p99 with a prune');
  const smscRates = smscs.map((r) => num(r.value, 0));
  return table(
    ['resource', 'figure', 'bench row'],
    [
      [
        'accepted single-recipient sends, API core',
        `${num(f.cpuPerSend.value)} µs of API CPU per send: about ${about(f.perCore)} sends/s per core ` +
          `(${num(reqs.value, 0)} sends/s at ${num(apiShare.value, 0)}% of a core)`,
        'B1 (CPU per send)',
      ],
      [
        'recipients accepted in bulk, per API',
        `about ${about(f.bulk)} recipients/s (a 10,000-recipient request acknowledged in ${num(ack.value, 0)} ms)`,
        'B2',
      ],
      [
        'dispatched messages, per worker process',
        `${num(f.oneWorker, 0)} messages/s to one SMPP peer (window 200), with its delivery receipts applied at ` +
          `${num(receipts.value, 0)}/s; two workers on the same ${run.machine.cores} cores: ${num(twoWorkers.value, 0)} together ` +
          '(the cores are the limit)',
        'B3',
      ],
      [
        'dispatched messages, per connector',
        `the connector's \`--tps\` cap, held (${smscRates.join(' and ')} of ${cap} TPS on ${smscs.length} connectors)`,
        'B7',
      ],
      [
        `MySQL per delivered message (3 databases)`,
        `${num(f.mysqlSingle, 0)} B as single-recipient sends, ${num(mysqlBulk.value, 0)} B in a 10,000-recipient ` +
          `request (pages in use; ${num(allocated.value, 0)} B of extents allocated)`,
        'B9 (MySQL bytes per delivered message)',
      ],
      [
        'Redis per queued message',
        `${num(f.redisSingle, 0)} bytes for a single-recipient send (a job each), ${num(f.redisBulk, 0)} bytes in a ` +
          '10,000-recipient request (jobs carry slices of ids)',
        'B9',
      ],
      [
        'removal of old messages (`db prune`)',
        `${num(f.pruneBeside, 0)} messages/s beside B1's load (the busy pace: \`RETENTION_PAUSE_FACTOR\` ` +
          `${retentionSettings.RETENTION_PAUSE_FACTOR.default}), ${num(f.pruneAlone, 0)} alone (the quiet pace: ` +
          `\`RETENTION_QUIET_PAUSE_FACTOR\` ${retentionSettings.RETENTION_QUIET_PAUSE_FACTOR.default}), ` +
          `\`RETENTION_BATCH\` ${retentionSettings.RETENTION_BATCH.default}, on tables of ${num(seeded, 0)} messages ` +
          `(far beyond the buffer pool); B1's p99 beside it ${p99.ratio}× its p99 without`,
        'B8',
      ],
    ],
  );
}

function dayTable(run: BenchRun, partitions?: BenchRun): string {
  const f = capacityFigures(run);
  const days = [1e6, 1e7, 1e8];
  const avg = days.map((n) => n / 86_400);
  const peak = avg.map((a) => a * PEAK);
  const atLeastTwo = (n: number) => Math.max(2, Math.ceil(n));
  const apiSingle = peak.map((p) => atLeastTwo(p / (f.perCore * HEADROOM)));
  const apiBulk = peak.map((p) => atLeastTwo(p / (f.bulk * HEADROOM)));
  const workers = peak.map((p) => atLeastTwo(p / (f.oneWorker * HEADROOM)));
  const retentionDays = retentionSettings.MESSAGE_RETENTION_DAYS.default;
  const quiet = days.map((n) => duration(n / f.pruneAlone));
  const busy = days.map((n) => duration(n / f.pruneBeside));
  const mysql = [
    'one server, 2–4 cores',
    'one server, 8 cores, SSD',
    'the main, notification and log databases on three servers',
  ];
  // Where each line's figures come from, in the order of the lines.
  const from = [
    'the day ÷ 86,400 s; peak ×10',
    'B1 (CPU per send), B2 (recipients/s)',
    'B3 (one worker)',
    'not measured here (see below)',
    'B9 (MySQL bytes, single sends)',
    'B9 (Redis bytes)',
    ...(partitions ? [`B8P (partition drop; run of ${partitions.at.slice(0, 10)})`] : []),
    'B8 (prune rates)',
    ...(partitions ? [`B8P (conversion; run of ${partitions.at.slice(0, 10)})`] : []),
  ];
  const drop = partitions && partitionDrop(partitions, days);
  const convert = partitions && conversion(partitions, days, retentionDays);
  return table(
    ['messages a day', '1 M', '10 M', '100 M', 'from'],
    (
      [
        [
          'average / planned peak',
          ...avg.map((a, i) => `${num(Math.round(a), 0)} / ${num(Math.round(peak[i]), 0)} messages/s`),
        ],
        [
          'API processes (one core each)',
          ...apiSingle.map((s, i) =>
            s === apiBulk[i] ? `${s}` : `${apiBulk[i]} (bulk) to ${s} (single sends)`,
          ),
        ],
        [
          'worker processes',
          ...workers.map((w) =>
            w > 2 ? `${w}, each on cores of its own, and SMSC binds whose TPS adds up to the peak` : `${w}`,
          ),
        ],
        ['MySQL', ...mysql],
        [
          'MySQL disk per retention day',
          ...days.map(
            (n, i) =>
              `${bytes(n * f.mysqlSingle)} or more` +
              (i === 0 ? ` (${bytes(n * f.mysqlSingle * retentionDays)} for ${retentionDays} days)` : ''),
          ),
        ],
        [
          "Redis for an hour's backlog at peak",
          ...peak.map(
            (p, i) =>
              `${bytes(p * 3600 * f.redisBulk)}${i === 0 ? ' in bulk, ' : ' / '}${bytes(p * 3600 * f.redisSingle)}` +
              (i === 0 ? ' as single sends' : ''),
          ),
        ],
        ...(drop ? [["pruning a day's messages (`db prune`), partitioned tables", ...drop]] : []),
        [
          drop
            ? "pruning a day's messages, tables not partitioned (the row walk)"
            : "pruning a day's messages (`db prune`)",
          ...days.map((n, i) => {
            const dayBusy = n / f.pruneBeside > 86_400;
            return dayBusy
              ? `${quiet[i]} on a quiet database, ${busy[i]} beside sends, longer than the day it removes: give MySQL ` +
                  'memory for its tables, lower `RETENTION_PAUSE_FACTOR` (the rate rises about as 1 / (factor + 1)) or ' +
                  'raise `RETENTION_QUIET_WRITES` to a load the servers carry unnoticed'
              : `${quiet[i]} on a quiet database, ${busy[i]} beside sends` +
                  (n / f.pruneBeside > 3 * 3600
                    ? ': run it when sends are few, and it takes the quiet pace'
                    : '');
          }),
        ],
        ...(convert ? [['converting them to partitions (`db partition`, once)', ...convert]] : []),
      ] as string[][]
    ).map((line, i) => [...line, from[i]]),
  );
}

/**
 * A day's partition dropped beside sends, with its archive and without, from B8P's day of N
 * messages: the drop itself is a metadata change, and what grows with the day (the archive's
 * reads, the partition's rows read to check and count them) grows linearly, so the times
 * scale by messages.
 */
function partitionDrop(run: BenchRun, days: number[]): string[] | undefined {
  const archived = rowIf(run, 'B8P', /^partition drop: .*archive included/);
  const bare = rowIf(run, 'B8P', /^partition drop: .*no archive/);
  if (!archived || !bare) return undefined;
  const measured = countIn(archived.metric, /a day of ([\d,]+) messages/);
  return days.map(
    (n) =>
      `${duration((archived.value * n) / measured)} with its archive, ${duration((bare.value * n) / measured)} ` +
      'without, beside sends (of which the five DROPs, a second or so each under load, do not grow with the day)',
  );
}

/**
 * `db partition` of a database holding `retentionDays` days of each size, at B8P's seconds per
 * million messages (each with an event and a receipt): a copy of each table, whose writes wait.
 */
function conversion(run: BenchRun, days: number[], retentionDays: number): string[] | undefined {
  const perMillion = rowIf(run, 'B8P', /^db partition of .* \(s per million\)$/);
  if (!perMillion) return undefined;
  return days.map(
    (n, i) =>
      `${duration((perMillion.value * n * retentionDays) / 1e6)}` +
      (i === 0 ? ` for ${retentionDays} days kept, writes to each table waiting while it is copied` : ''),
  );
}

/** The run whose B8P rows the guide quotes: the full run's, else the committed `--only B8P` run's. */
export function partitionRun(run: BenchRun, separate?: BenchRun): BenchRun | undefined {
  const measures = (r?: BenchRun) => r && rowIf(r, 'B8P', /^partition drop: /);
  return measures(run) ? run : measures(separate) ? separate : undefined;
}

function scalingIntro(run: BenchRun): string {
  return wrap(
    'What one process and one row cost, from the bench rows that measure them. Every figure is from ' +
      `the full \`npm run bench\` of ${run.at.slice(0, 10)} whose output is committed as \`bench/results/latest.json\` ` +
      `(see [Performance](../performance.md) for how): a ${run.machine.cores}-core ${cpuName(run)} VM with ` +
      `${serversText(run)} and the load generator on the same ${run.machine.cores} cores, so a dedicated server ` +
      'does better.',
  );
}

function planIntro(run: BenchRun, partitions?: BenchRun): string {
  const f = capacityFigures(run);
  return wrap(
    `A day's traffic is not even: campaigns and business hours bunch it, so the table below plans for a peak of ` +
      `${PEAK} times the day's average, keeps every tier at two processes at least so one can fail or be ` +
      `redeployed, and loads an API core or a worker to ${HEADROOM * 100}% of what B1 and B3 measured. Disk is ` +
      `MySQL's bytes per message times messages per day (B9's single-send figure, ${num(f.mysqlSingle, 0)} B; a ` +
      "table's allocated extents run higher), for each day of `MESSAGE_RETENTION_DAYS`, before backups and binary " +
      'logs; Redis is one primary and a replica, sized for the backlog it must hold while workers are away or ' +
      'behind; the ledger (a charge per request, a refund per failed message) is never pruned and is not counted. ' +
      (partitions
        ? partitionsText(run, partitions)
        : "Pruning divides a day's messages by B8's rates, quiet and beside sends."),
  );
}

/** How the plan's partition lines are computed, and from which run. */
function partitionsText(run: BenchRun, partitions: BenchRun): string {
  const archived = row(partitions, 'B8P', /^partition drop: .*archive included/);
  const measured = countIn(archived.metric, /a day of ([\d,]+) messages/);
  const source =
    partitions === run
      ? 'the same run'
      : `\`npm run bench -- --only B8P\` of ${partitions.at.slice(0, 10)} (\`${PARTITION_RUN}\`, the same ` +
        `machine${partitions.machine.load_average ? ` at a load average of ${num(partitions.machine.load_average, 0)} from other work, so an upper bound` : ''})`;
  return (
    'Pruning on partitioned tables (every new installation, or one converted by `db partition`) drops ' +
    `a day's partitions: its time is B8P's for a day of ${num(measured, 0)} messages beside B1's sends, from ` +
    `${source}, times the day's messages ÷ ${num(measured, 0)}, since what it reads (the archive, each ` +
    "partition's rows checked and counted) grows with the day while the DROP does not. On tables not " +
    "partitioned the prune walks the rows: a day's messages ÷ B8's rates, quiet and beside sends. The " +
    "conversion is B8P's seconds per million messages times the messages `MESSAGE_RETENTION_DAYS` keeps."
  );
}

/** Each generated block by the page and the name its markers carry. */
export function blocks(
  run: BenchRun,
  separate?: BenchRun,
): Record<keyof typeof PAGES, Record<string, string>> {
  const partitions = partitionRun(run, separate);
  return {
    performance: { 'latest-figures': latestFigures(run) },
    scaling: {
      'capacity-intro': scalingIntro(run),
      capacity: capacityTable(run),
      'plan-intro': planIntro(run, partitions),
      plan: dayTable(run, partitions),
    },
  };
}

/** The page with each marked block replaced, formatted as `npm run format` leaves it. */
export async function renderPage(file: string, text: string, parts: Record<string, string>): Promise<string> {
  let out = text;
  for (const [name, body] of Object.entries(parts)) {
    const open = `<!-- bench:${name} -->`;
    const close = `<!-- /bench:${name} -->`;
    const start = out.indexOf(open);
    const end = out.indexOf(close);
    if (start < 0 || end < start) throw new Error(`${file} lacks the ${open} … ${close} lines`);
    out = `${out.slice(0, start + open.length)}\n\n${body}\n\n${out.slice(end)}`;
  }
  return format(out, { ...(await resolveConfig(file)), filepath: file });
}

/** The pages as the given run makes them, by path. */
export async function renderBenchDocs(root = '.', run?: BenchRun): Promise<Record<string, string>> {
  const latest = run ?? (JSON.parse(readFileSync(join(root, LATEST), 'utf8')) as BenchRun);
  const separate = existsSync(join(root, PARTITION_RUN))
    ? (JSON.parse(readFileSync(join(root, PARTITION_RUN), 'utf8')) as BenchRun)
    : undefined;
  const parts = blocks(latest, separate);
  const out: Record<string, string> = {};
  for (const [key, path] of Object.entries(PAGES) as [keyof typeof PAGES, string][]) {
    const file = join(root, path);
    out[path] = await renderPage(file, readFileSync(file, 'utf8'), parts[key]);
  }
  return out;
}

export async function writeBenchDocs(root = '.', run?: BenchRun): Promise<string[]> {
  const pages = await renderBenchDocs(root, run);
  for (const [path, text] of Object.entries(pages)) writeFileSync(join(root, path), text);
  return Object.keys(pages);
}
