import { parser } from '@prometheus-io/lezer-promql';
import { describe, expect, it } from 'vitest';
import { dashboard, dashboardQueries } from './dashboard.js';
import { metricNames, PROMTOOL, promtoolParses } from './promql.js';

/**
 * deploy/grafana/dashboard.json: every query parses as PromQL (promtool and Prometheus's own
 * grammar) and reads the datasource chosen on import; the panels cover what an operator watches.
 * That every metric is served is checked against the running service (test/e2e/deploy.e2e-spec.ts).
 */
if (!PROMTOOL)
  console.warn('\n!!! SKIPPED: promtool parsing of the dashboard queries — promtool is not installed\n');

describe('deploy/grafana/dashboard.json', () => {
  it.skipIf(!PROMTOOL)('every query parses under promtool', () => {
    expect(dashboardQueries.length).toBeGreaterThan(15);
    const r = promtoolParses(dashboardQueries.map((q) => q.expr));
    expect(r.output).toContain(`SUCCESS: ${dashboardQueries.length} rules found`);
    expect(r.status).toBe(0);
  });

  it('every query parses under the PromQL grammar, and a broken one does not', () => {
    const errors = (expr: string) => {
      let bad = false;
      parser.parse(expr).iterate({ enter: (n) => void (n.type.isError && (bad = true)) });
      return bad;
    };
    expect(dashboardQueries.filter((q) => errors(q.expr))).toEqual([]);
    expect(errors('sum by (channel) (rate(bulk_messages_total[5m])')).toBe(true);
  });

  it('every panel queries the dashboard datasource variable, with unique ids on a 24-column grid', () => {
    expect(dashboard.templating.list).toContainEqual(
      expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' }),
    );
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of dashboard.panels) {
      expect(p.gridPos.x + p.gridPos.w, p.title).toBeLessThanOrEqual(24);
      if (p.type === 'row') continue;
      expect(p.datasource?.uid, p.title).toBe('${datasource}');
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
      for (const t of p.targets ?? []) expect(t.datasource.uid).toBe('${datasource}');
    }
  });

  it('shows throughput per channel and connector, delivery, both latencies, queue depth and callback health', () => {
    const used = new Set(dashboardQueries.flatMap((q) => metricNames(q.expr)));
    for (const m of [
      'bulk_messages_total',
      'bulk_connector_messages_total',
      'bulk_dispatch_latency_seconds_bucket',
      'bulk_delivery_latency_seconds_bucket',
      'bulk_queue_jobs',
      'bulk_connector_bound',
      'bulk_callback_attempts_total',
      'bulk_callback_target_failing',
    ])
      expect(used.has(m), m).toBe(true);
  });
});
