import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_CONFIG, type AppConfig } from '../../src/config/config.js';
import { CacheStats } from '../../src/modules/metrics/cache-stats.service.js';
import { MetricsService } from '../../src/modules/metrics/metrics.service.js';
import { ProcessStats } from '../../src/modules/metrics/process-stats.service.js';
import { WorkerMetricsServer } from '../../src/modules/metrics/worker-metrics.server.js';
import { parse } from 'yaml';
import { KUBECTL, read, render, type K8sObject } from '../deploy/manifests.js';
import { metricNames, servedBy } from '../deploy/promql.js';
import { dashboardQueries } from '../deploy/dashboard.js';
import { freePort } from '../support/local-state.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * What deploy/ names must exist in the running service: the paths and ports of the Kubernetes
 * probes answer, and every metric an alert rule or the dashboard names is on /metrics. The app runs its workers
 * in-process here, so its /metrics has both kinds of process's families (the API's queue
 * depths, the workers' connectors and callbacks).
 */
const objects = KUBECTL ? render('overlays/production') : [];
type Probe = { httpGet: { path: string; port: string } };
type Container = { ports: Array<{ name: string; containerPort: number }>; [probe: string]: unknown };

function probesOf(deployment: string): Array<{ kind: string; path: string; port: number }> {
  const d = objects.find((o: K8sObject) => o.kind === 'Deployment' && o.metadata.name === deployment)!;
  const c = d.spec.template.spec.containers[0] as Container;
  return ['startupProbe', 'readinessProbe', 'livenessProbe']
    .filter((k) => c[k])
    .map((k) => {
      const { path, port } = (c[k] as Probe).httpGet;
      return { kind: k, path, port: c.ports.find((p) => p.name === port)!.containerPort };
    });
}

describe('the running service answers what deploy/ names', () => {
  let t: TestApp;
  let workerServer: WorkerMetricsServer | undefined;

  beforeAll(async () => {
    t = await startTestApp({ RUN_WORKERS: 'true' });
  });
  afterAll(async () => {
    await workerServer?.onApplicationShutdown();
    await t?.close();
  });

  const alertExprs = () =>
    (
      parse(read('deploy/prometheus/alerts.yaml')) as { groups: Array<{ rules: Array<{ expr: string }> }> }
    ).groups
      .flatMap((g) => g.rules)
      .map((r) => r.expr);
  it.each([
    ['the alert rules name', alertExprs],
    ['the Grafana dashboard queries', () => dashboardQueries.map((q) => q.expr)],
  ])('every metric %s is served', async (_, exprs) => {
    const served = servedBy((await t.http().get('/metrics')).text);
    const used = [...new Set(exprs().flatMap(metricNames))];
    expect(used.length).toBeGreaterThan(8);
    expect(used.filter((m) => !served(m))).toEqual([]);
  });

  it.skipIf(!KUBECTL)("the API Deployment's probe paths answer 200 on a ready API", async () => {
    const probes = probesOf('bulk-messaging-api');
    expect(probes.map((p) => p.kind)).toEqual(['startupProbe', 'readinessProbe', 'livenessProbe']);
    for (const p of probes) {
      expect(p.port).toBe(3000); // PORT in the same Deployment; the test app listens on its own
      expect((await t.http().get(p.path)).status, `${p.kind} ${p.path}`).toBe(200);
    }
  });

  it.skipIf(!KUBECTL)(
    "the worker Deployment's probe paths answer 200 on a worker's metrics port",
    async () => {
      const probes = probesOf('bulk-messaging-worker');
      expect(probes.length).toBeGreaterThan(0);
      // The server a worker process runs on METRICS_PORT (worker.ts), here on a free port.
      const port = await freePort();
      const config = { ...t.app.get<AppConfig>(APP_CONFIG), metricsPort: port };
      workerServer = new WorkerMetricsServer(
        config,
        new MetricsService(new CacheStats()),
        new ProcessStats(),
      );
      await workerServer.onApplicationBootstrap();
      for (const p of probes) {
        expect(p.port).toBe(9464);
        const res = await fetch(`http://127.0.0.1:${port}${p.path}`);
        expect(res.status, `${p.kind} ${p.path}`).toBe(200);
      }
      expect((await fetch(`http://127.0.0.1:${port}/health/ready`)).status).toBe(404);
    },
  );
});
