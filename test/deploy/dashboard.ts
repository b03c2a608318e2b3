import { read } from './manifests.js';

interface Panel {
  type: string;
  id: number;
  title: string;
  datasource?: { type: string; uid: string };
  gridPos: { h: number; w: number; x: number; y: number };
  targets?: Array<{ refId: string; expr: string; datasource: { type: string; uid: string } }>;
}

export const dashboard = JSON.parse(read('deploy/grafana/dashboard.json')) as {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string; query: string }> };
};

/** Every query of the dashboard as Prometheus receives it: Grafana's interval variable filled in. */
export const dashboardQueries = dashboard.panels.flatMap((p) =>
  (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr.replaceAll('$__rate_interval', '5m') })),
);
