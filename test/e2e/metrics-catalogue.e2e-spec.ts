import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetricsService } from '../../src/modules/metrics/metrics.service.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * What a scrape of /metrics can hold: every metric's name, type and label names, of an API
 * process with its workers. Dashboards, alert rules (deploy/prometheus) and the manual name them,
 * so a metric renamed, retyped or relabelled while the code around it moves is a visible diff in
 * the catalogue beside this spec, never a surprise on a dashboard.
 */
describe('the catalogue of /metrics', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ METRICS_TOKEN: 'metrics-token-0123456789abcdef', RUN_WORKERS: 'true' });
  });
  afterAll(() => t?.close());

  it('names the same metrics, types and labels as the catalogue', async () => {
    // prom-client types the registry's metrics loosely; each is a Counter, Gauge, Histogram or Summary.
    const metrics = t.app.get(MetricsService).registry.getMetricsAsArray() as unknown as Array<{
      name: string;
      labelNames?: readonly string[];
      get(): Promise<{ type: string }>;
    }>;
    const lines = await Promise.all(
      metrics.map(async (m) => {
        const { type } = await m.get();
        return `${m.name} ${type} [${[...(m.labelNames ?? [])].sort().join(',')}]`;
      }),
    );
    await expect(`${lines.sort().join('\n')}\n`).toMatchFileSnapshot('./metrics-catalogue.txt');
  });
});
