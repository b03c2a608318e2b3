import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import { stringify } from 'yaml';

/** Prometheus's own rule checker and tester (Debian's `prometheus` package). */
export const PROMTOOL = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((p) => existsSync(p));

export function promtool(args: string[], cwd?: string): { status: number | null; output: string } {
  const r = spawnSync(PROMTOOL!, args, { cwd, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/**
 * The metric names an expression selects, read from its syntax tree (the grammar of
 * Prometheus's own web UI), so a label or function name is never taken for a metric.
 */
export function metricNames(expr: string): string[] {
  const names = new Set<string>();
  parser.parse(expr).iterate({
    enter(n) {
      if (n.name !== 'VectorSelector') return;
      const id = n.node.getChild('Identifier');
      if (id) names.add(expr.slice(id.from, id.to));
    },
  });
  return [...names];
}

/**
 * Whether promtool parses each expression as PromQL: they are written as recording rules to a
 * scratch file and given to `promtool check rules`. Returns promtool's status and output.
 */
export function promtoolParses(exprs: string[]): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'promql-'));
  try {
    const rules = exprs.map((expr, i) => ({ record: `check:expression_${i}`, expr }));
    writeFileSync(join(dir, 'rules.yaml'), stringify({ groups: [{ name: 'check', rules }] }));
    return promtool(['check', 'rules', join(dir, 'rules.yaml')]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Whether a name is served by a /metrics text: a family's own name, or a histogram's or
 * summary's _bucket/_sum/_count series (a family with no sample yet still has its TYPE line).
 */
export function servedBy(metricsText: string): (name: string) => boolean {
  const families = new Map(
    [...metricsText.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]] as [string, string]),
  );
  return (name) => {
    if (families.has(name)) return true;
    const m = /^(.+)_(bucket|sum|count)$/.exec(name);
    return !!m && ['histogram', 'summary'].includes(families.get(m[1]) ?? '');
  };
}
