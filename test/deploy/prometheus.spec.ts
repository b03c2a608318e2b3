import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT, read } from './manifests.js';
import { metricNames, PROMTOOL, promtool } from './promql.js';

/**
 * deploy/prometheus/alerts.yaml: valid for Prometheus (`promtool check rules`), each alert
 * unit-tested (`promtool test rules` on alerts.test.yaml) and explained in the runbook. That
 * every metric it names is served is checked against the running service
 * (test/e2e/deploy.e2e-spec.ts).
 */
if (!PROMTOOL)
  console.warn(
    '\n!!! SKIPPED: promtool check rules / test rules — promtool is not installed (Debian package prometheus; .ci/run installs it)\n',
  );

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: { severity: string };
  annotations: { summary: string; runbook: string };
}
const rules = (
  parse(read('deploy/prometheus/alerts.yaml')) as { groups: Array<{ rules: Rule[] }> }
).groups.flatMap((g) => g.rules);
const tests = parse(read('deploy/prometheus/alerts.test.yaml')) as {
  tests: Array<{ alert_rule_test: Array<{ alertname: string; exp_alerts: unknown[] }> }>;
};
const runbook = read('deploy/prometheus/README.md');

describe('deploy/prometheus/alerts.yaml', () => {
  it.skipIf(!PROMTOOL)('passes promtool check rules', () => {
    const r = promtool(['check', 'rules', 'deploy/prometheus/alerts.yaml'], ROOT);
    expect(r.output).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(r.status).toBe(0);
  });

  it.skipIf(!PROMTOOL)('passes its unit tests under promtool test rules', () => {
    const r = promtool(['test', 'rules', 'alerts.test.yaml'], `${ROOT}/deploy/prometheus`);
    expect(r.output).toContain('SUCCESS');
    expect(r.status, r.output).toBe(0);
  });

  it('every alert has a unit test where it fires, a severity, a `for:` and a runbook section', () => {
    expect(rules.length).toBeGreaterThanOrEqual(10);
    const firing = new Set(
      tests.tests.flatMap((t) =>
        t.alert_rule_test.filter((a) => a.exp_alerts.length > 0).map((a) => a.alertname),
      ),
    );
    for (const r of rules) {
      expect(firing.has(r.alert), `${r.alert} fires in a test`).toBe(true);
      expect(['critical', 'warning', 'info']).toContain(r.labels.severity);
      expect(r.for, r.alert).toMatch(/^\d+m$/);
      const anchor = r.alert.toLowerCase();
      expect(r.annotations.runbook).toBe(`deploy/prometheus/README.md#${anchor}`);
      expect(runbook, `a "### ${r.alert}" section`).toContain(`### ${r.alert}\n`);
    }
  });

  it('covers the failures an operator must hear of', () => {
    const used = new Set(rules.flatMap((r) => metricNames(r.expr)));
    for (const m of [
      'bulk_receipts_unmatched_total', // receipts stopped matching
      'bulk_connector_bound', // a connector unbound
      'bulk_queue_jobs', // the queue grows
      'bulk_callback_target_failing', // callbacks fail for a target
      'bulk_spend_limit_refusals_total', // spend or balance runs out
      'http_requests_total', // the error rate rose
    ])
      expect(used.has(m), m).toBe(true);
  });
});
