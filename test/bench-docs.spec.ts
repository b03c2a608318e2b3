import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  about,
  blocks,
  bytes,
  duration,
  LATEST,
  PAGES,
  PARTITION_RUN,
  renderBenchDocs,
  serversText,
  type BenchRun,
} from '../bench/docs.js';

/**
 * The performance page's figures and the capacity guide are the committed full bench run's:
 * each page reads as bench/docs.ts makes it from bench/results/latest.json.
 */
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const latest = JSON.parse(readFileSync(`${ROOT}${LATEST}`, 'utf8')) as BenchRun;

describe('figures quoted from the bench', () => {
  it.each(Object.values(PAGES))('%s quotes bench/results/latest.json (npm run docs:bench)', async (page) => {
    const pages = await renderBenchDocs(ROOT);
    expect(readFileSync(`${ROOT}${page}`, 'utf8')).toBe(pages[page]);
  });

  it('derives the plan from the rows it names: a faster prune shortens the day it takes', () => {
    const faster: BenchRun = {
      ...latest,
      results: latest.results.map((r) =>
        r.id === 'B8' && r.metric.startsWith('prune rate alone') ? { ...r, value: 1000 } : r,
      ),
    };
    // 1,000,000 messages at 1,000 a second: 1,000 s.
    expect(blocks(faster).scaling.plan).toContain('17 minutes on a quiet database');
    expect(blocks(latest).scaling.plan).not.toBe(blocks(faster).scaling.plan);
  });

  it('scales the partitioned prune from the B8P run it names, the full run’s first', () => {
    const b8p = (at: string, archived: number, bare: number): BenchRun => ({
      ...latest,
      at,
      results: [
        {
          id: 'B8P',
          metric: 'db partition of 3,000,000 messages with an event and receipt each (s per million)',
          value: 40,
          unit: 's',
          bar: '',
          ok: true,
        },
        {
          id: 'B8P',
          metric: 'partition drop: db prune of a day of 1,000,000 messages beside B1, archive included',
          value: archived,
          unit: 's',
          bar: '≤ 60 s',
          ok: true,
        },
        {
          id: 'B8P',
          metric: 'partition drop: db prune of a day of 1,000,000 messages beside B1, no archive',
          value: bare,
          unit: 's',
          bar: '≤ 10 s',
          ok: true,
        },
      ],
    });
    const separate = b8p('2026-12-07T05:00:00Z', 30, 6);
    const plan = blocks(latest, separate).scaling.plan;
    // 100 M a day: 100 × 30 s and 100 × 6 s; 90 days of 1 M at 40 s per million: 1 hour.
    expect(plan).toContain('50 minutes with its archive, 10 minutes without');
    expect(plan).toContain('60 minutes for 90 days kept');
    expect(plan).toContain('B8P (partition drop; run of 2026-12-07)');
    expect(blocks(latest, separate).scaling['plan-intro']).toContain(PARTITION_RUN);
    // A full run with B8P rows is quoted before the separate one.
    const full: BenchRun = { ...latest, results: [...latest.results, ...b8p(latest.at, 60, 12).results] };
    expect(blocks(full, separate).scaling.plan).toContain('1.7 hours with its archive, 20 minutes without');
    // Without B8P rows anywhere the plan quotes the row walk alone.
    expect(blocks(latest).scaling.plan).not.toContain('partitioned tables');
  });

  it('names the row it misses instead of quoting nothing', () => {
    const without: BenchRun = { ...latest, results: latest.results.filter((r) => r.id !== 'B9') };
    expect(() => blocks(without)).toThrow(/has no B9 row/);
  });

  it('names the servers a run recorded', () => {
    const recorded: BenchRun = {
      ...latest,
      machine: {
        ...latest.machine,
        mysql: '10.11.14-MariaDB-0+deb12u2',
        buffer_pool_mb: 4096,
        redis: '7.0.15',
      },
    };
    expect(serversText(recorded)).toBe('MariaDB 10.11 with a 4,096 MB buffer pool, Redis 7');
    expect(blocks(recorded).scaling['capacity-intro'].replace(/\s+/g, ' ')).toContain('4,096 MB buffer pool');
  });

  it('writes sizes, durations and round figures the way the guide reads them', () => {
    expect(bytes(2_826e6)).toBe('2.8 GB');
    expect(bytes(254.34e9)).toBe('254 GB');
    expect(bytes(12_528_000)).toBe('13 MB');
    expect(duration(400)).toBe('7 minutes');
    expect(duration(6_667)).toBe('1.9 hours');
    expect(duration(66_667)).toBe('19 hours');
    expect(duration(666_667)).toBe('8 days');
    expect(about(3_918.5)).toBe('3,900');
    expect(about(36_224.4)).toBe('36,000');
  });
});
