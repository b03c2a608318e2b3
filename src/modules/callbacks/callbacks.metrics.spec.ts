import { describe, expect, it } from 'vitest';
import { CacheStats } from '../metrics/cache-stats.service.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { CallbackMetrics, FAILING_TARGETS_NAMED, OTHER_TARGETS } from './callbacks.metrics.js';

/** The series of bulk_callback_target_failing in one scrape: target label → value. */
async function scrape(failing: string[]): Promise<Map<string, number>> {
  const metrics = new MetricsService(new CacheStats());
  new CallbackMetrics(metrics).watchFailingTargets(() => failing);
  const lines = (await metrics.render()).body
    .split('\n')
    .filter((l) => l.startsWith('bulk_callback_target_failing{'));
  return new Map(lines.map((l) => [/target="([^"]*)"/.exec(l)![1]!, Number(l.split(' ').pop())]));
}

describe('bulk_callback_target_failing', () => {
  it('names each failing target while there are few', async () => {
    const series = await scrape(['https://a.example', 'https://b.example:8443']);
    expect([...series]).toEqual([
      ['https://a.example', 1],
      ['https://b.example:8443', 1],
    ]);
  });

  it('names the first targets only and counts the rest as other, however many hosts tenants make fail', async () => {
    const hosts = Array.from({ length: 5000 }, (_, i) => `https://h${i}.attacker.example`);
    const series = await scrape(hosts);
    expect(series.size).toBe(FAILING_TARGETS_NAMED + 1);
    expect([...series.keys()].slice(0, FAILING_TARGETS_NAMED)).toEqual(hosts.slice(0, FAILING_TARGETS_NAMED));
    expect(series.get(OTHER_TARGETS)).toBe(5000 - FAILING_TARGETS_NAMED);
  });

  it('has no series when nothing fails', async () => {
    expect((await scrape([])).size).toBe(0);
  });
});
