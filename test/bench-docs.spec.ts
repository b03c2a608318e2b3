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
