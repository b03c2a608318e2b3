import { describe, expect, it } from 'vitest';
import {
  envFileKeys,
  KUBECTL,
  manifestFiles,
  modelFor,
  parseYaml,
  read,
  render,
  SETTINGS,
  type K8sObject,
} from './manifests.js';

/**
 * deploy/kubernetes cannot be applied here (no cluster), so it is checked statically: every
 * object against the Kubernetes 1.33 JSON schemas (kubernetes-models), as written and as
 * kustomize renders the production overlay; then what the schemas cannot know: that every
 * variable is a setting the service reads, that selectors find their pods, and that the probe
 * and termination timings fit the drain. That the probe paths answer is checked against the
 * running service in test/e2e/deploy.e2e-spec.ts.
 */
if (!KUBECTL)
  console.warn(
    '\n!!! SKIPPED: kustomize rendering of deploy/kubernetes — kubectl is not installed (its built-in kustomize renders the overlays)\n',
  );

const files = manifestFiles().filter((f) => !f.endsWith('.env'));
const production = KUBECTL ? render('overlays/production') : [];
const secretExample = parseYaml(read('deploy/kubernetes/secrets.example.yaml'))[0];

type Container = {
  name: string;
  env?: Array<{ name: string; value?: string }>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  ports?: Array<{ name?: string; containerPort: number }>;
  [probe: string]: unknown;
};
const podSpec = (o: K8sObject) => o.spec.template.spec as { containers: Container[]; [k: string]: unknown };
const byKind = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);
const named = (objects: K8sObject[], kind: string, name: string) =>
  objects.find((o) => o.kind === kind && o.metadata.name === name)!;
const envOf = (c: Container) => Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]));

async function schemaErrors(o: K8sObject): Promise<string | null> {
  const Model = await modelFor(o);
  try {
    new Model(o).validate();
    return null;
  } catch (err) {
    return `${o.kind} ${o.metadata?.name}: ${(err as Error).message}`;
  }
}

describe('deploy/kubernetes', () => {
  it('every manifest file parses and is valid under the Kubernetes 1.33 schemas', async () => {
    expect(files.length).toBeGreaterThanOrEqual(9);
    const errors: string[] = [];
    for (const f of files) for (const o of parseYaml(read(f))) errors.push((await schemaErrors(o)) ?? '');
    expect(errors.filter(Boolean)).toEqual([]);
  });

  it('the schema check refuses a wrong field type and a missing required field', async () => {
    const deployment = parseYaml(read('deploy/kubernetes/base/api-deployment.yaml'))[0];
    const badPort = structuredClone(deployment);
    podSpec(badPort).containers[0].ports![0].containerPort = 'http' as unknown as number;
    expect(await schemaErrors(badPort)).toMatch(/containerPort must be integer/);
    const noSelector = structuredClone(deployment);
    delete noSelector.spec.selector;
    expect(await schemaErrors(noSelector)).toMatch(/selector/);
  });

  it.skipIf(!KUBECTL)(
    'the production overlay renders the API, worker, migration Job, HPA, PDBs and network policies, all valid',
    async () => {
      const kinds = production.map((o) => `${o.kind}/${o.metadata.name}`);
      for (const k of [
        'Deployment/bulk-messaging-api',
        'Deployment/bulk-messaging-worker',
        'Service/bulk-messaging-api',
        'HorizontalPodAutoscaler/bulk-messaging-api',
        'Job/bulk-messaging-migrate',
        'PodDisruptionBudget/bulk-messaging-api',
        'PodDisruptionBudget/bulk-messaging-worker',
        'NetworkPolicy/bulk-messaging-default-deny',
      ])
        expect(kinds).toContain(k);
      const errors = await Promise.all(production.map(schemaErrors));
      expect(errors.filter(Boolean)).toEqual([]);
      expect(
        production.every((o) => o.kind === 'Namespace' || o.metadata.namespace === 'bulk-messaging'),
      ).toBe(true);
    },
  );

  it.skipIf(!KUBECTL)(
    'passes only settings the service reads: env, the settings ConfigMap and the Secret keys',
    () => {
      const configMaps = byKind(production, 'ConfigMap');
      expect(configMaps).toHaveLength(1);
      const settingKeys = Object.keys(configMaps[0].data as Record<string, string>);
      const secretKeys = Object.keys(secretExample.stringData as Record<string, string>);
      const passed = new Set([...settingKeys, ...secretKeys]);
      for (const o of [...byKind(production, 'Deployment'), ...byKind(production, 'Job')]) {
        for (const c of podSpec(o).containers) {
          for (const e of c.env ?? []) passed.add(e.name);
          // envFrom names the generated ConfigMap and the Secret, nothing else.
          expect(c.envFrom).toEqual([
            { configMapRef: { name: configMaps[0].metadata.name } },
            { secretRef: { name: secretExample.metadata.name } },
          ]);
        }
      }
      expect([...passed].filter((v) => !SETTINGS.includes(v))).toEqual([]);
      // Secrets apart from settings: nothing with a credential in the ConfigMap, no Secret rendered.
      expect(settingKeys.filter((k) => secretKeys.includes(k))).toEqual([]);
      expect(settingKeys.filter((k) => /URL$|TOKEN|PASSWORD/.test(k) && k !== 'PUBLIC_BASE_URL')).toEqual([]);
      expect(byKind(production, 'Secret')).toEqual([]);
      // The commented Sentinel options are settings names too, once uncommented.
      expect(read('deploy/kubernetes/base/settings.env')).toMatch(
        /^# REDIS_SENTINELS=.+\n# REDIS_SENTINEL_NAME=/m,
      );
    },
  );

  it.skipIf(!KUBECTL)('probes use the ports the processes listen on, and the API probes readiness', () => {
    const api = podSpec(named(production, 'Deployment', 'bulk-messaging-api')).containers[0];
    const worker = podSpec(named(production, 'Deployment', 'bulk-messaging-worker')).containers[0];
    const portOf = (c: Container, p: string | number) =>
      typeof p === 'number' ? p : c.ports!.find((x) => x.name === p)!.containerPort;
    const probe = (c: Container, kind: string) => {
      const h = (c[kind] as { httpGet: { path: string; port: string | number } }).httpGet;
      return `${h.path} :${portOf(c, h.port)}`;
    };
    expect(envOf(api)).toMatchObject({ PORT: '3000', RUN_WORKERS: 'false' });
    expect([probe(api, 'startupProbe'), probe(api, 'readinessProbe'), probe(api, 'livenessProbe')]).toEqual([
      '/health/live :3000',
      '/health/ready :3000',
      '/health/live :3000',
    ]);
    expect(envOf(worker)).toMatchObject({ METRICS_PORT: '9464' });
    expect([probe(worker, 'startupProbe'), probe(worker, 'livenessProbe')]).toEqual([
      '/health/live :9464',
      '/health/live :9464',
    ]);
    const service = named(production, 'Service', 'bulk-messaging-api');
    expect(api.ports!.map((p) => p.name)).toContain(service.spec.ports[0].targetPort);
  });

  it.skipIf(!KUBECTL)(
    'the termination grace covers the preStop pause and SHUTDOWN_GRACE_MS; the start-up probe covers STARTUP_WAIT_SECONDS',
    () => {
      const settings = byKind(production, 'ConfigMap')[0].data as Record<string, string>;
      const graceS = Number(settings.SHUTDOWN_GRACE_MS) / 1000;
      for (const name of ['bulk-messaging-api', 'bulk-messaging-worker']) {
        const spec = podSpec(named(production, 'Deployment', name));
        const c = spec.containers[0];
        const pause = Number(
          (c.lifecycle as { preStop?: { exec: { command: string[] } } } | undefined)?.preStop?.exec
            .command[1] ?? 0,
        );
        expect(spec.terminationGracePeriodSeconds, name).toBeGreaterThanOrEqual(pause + graceS + 5);
        const startup = c.startupProbe as { periodSeconds: number; failureThreshold: number };
        expect(startup.periodSeconds * startup.failureThreshold, name).toBeGreaterThan(
          Number(settings.STARTUP_WAIT_SECONDS),
        );
        expect(c.resources, name).toMatchObject({
          requests: { cpu: expect.any(String), memory: expect.any(String) },
          limits: { memory: expect.any(String) },
        });
      }
      // The API leaves the Service before its listener closes.
      const api = podSpec(named(production, 'Deployment', 'bulk-messaging-api')).containers[0];
      expect(api.lifecycle).toEqual({ preStop: { exec: { command: ['sleep', '5'] } } });
    },
  );

  it.skipIf(!KUBECTL)('every selector finds pods, and the migration Job runs `db migrate`', () => {
    const pods = [...byKind(production, 'Deployment'), ...byKind(production, 'Job')].map(
      (o) => o.spec.template.metadata.labels as Record<string, string>,
    );
    const finds = (sel: Record<string, string>) =>
      pods.some((labels) => Object.entries(sel).every(([k, v]) => labels[k] === v));
    for (const o of byKind(production, 'Service')) expect(finds(o.spec.selector), o.metadata.name).toBe(true);
    for (const o of [...byKind(production, 'PodDisruptionBudget'), ...byKind(production, 'NetworkPolicy')])
      expect(finds(o.spec.podSelector?.matchLabels ?? o.spec.selector.matchLabels), o.metadata.name).toBe(
        true,
      );
    for (const d of byKind(production, 'Deployment'))
      expect(finds(d.spec.selector.matchLabels) && d.spec.template.metadata.labels).toMatchObject(
        d.spec.selector.matchLabels,
      );
    const hpa = named(production, 'HorizontalPodAutoscaler', 'bulk-messaging-api');
    expect(named(production, hpa.spec.scaleTargetRef.kind, hpa.spec.scaleTargetRef.name)).toBeDefined();
    const job = named(production, 'Job', 'bulk-messaging-migrate');
    expect(podSpec(job).containers[0]).toMatchObject({ command: ['node', 'dist/cli.js', 'db', 'migrate'] });
  });

  it.skipIf(!KUBECTL)(
    "with TRUST_PROXY a range, the API's port admits only the ingress controller's pods (and Prometheus's), never any pod",
    () => {
      const settings = byKind(production, 'ConfigMap').find((c) =>
        c.metadata.name.startsWith('bulk-messaging-settings'),
      )!;
      const trustProxy = String((settings.data as Record<string, string>).TRUST_PROXY ?? '');
      // The overlay trusts the pod network: a CIDR range, so who may connect is what matters.
      expect(trustProxy).toMatch(/\/\d+/);
      const api = podSpec(named(production, 'Deployment', 'bulk-messaging-api')).containers[0];
      const apiPort = api.ports![0]!.containerPort;
      const apiLabels = named(production, 'Deployment', 'bulk-messaging-api').spec.template.metadata
        .labels as Record<string, string>;
      const selects = (sel: Record<string, string> | undefined) =>
        Object.entries(sel ?? {}).every(([k, v]) => apiLabels[k] === v);
      type Peer = {
        namespaceSelector?: { matchLabels?: Record<string, string> };
        podSelector?: { matchLabels?: Record<string, string> };
        ipBlock?: unknown;
      };
      type Rule = { from?: Peer[]; ports?: Array<{ port: number }> };
      const rules = byKind(production, 'NetworkPolicy')
        .filter(
          (p) => selects(p.spec.podSelector?.matchLabels) && (p.spec.policyTypes ?? []).includes('Ingress'),
        )
        .flatMap((p) => (p.spec.ingress ?? []) as Rule[])
        .filter((r) => !r.ports || r.ports.some((p) => p.port === apiPort));
      expect(rules.length).toBeGreaterThan(0);
      const peers = rules.flatMap((r) => {
        // A rule without `from` admits every source: never on the API's port.
        expect(r.from, 'a rule on the API port without from').toBeDefined();
        return r.from!;
      });
      for (const peer of peers) {
        // Each source is pods of one labelled namespace: both selectors, both with labels.
        expect(peer.ipBlock).toBeUndefined();
        expect(Object.keys(peer.namespaceSelector?.matchLabels ?? {})).toContain(
          'kubernetes.io/metadata.name',
        );
        expect(Object.keys(peer.podSelector?.matchLabels ?? {}).length).toBeGreaterThan(0);
      }
      expect(peers).toContainEqual({
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } },
        podSelector: {
          matchLabels: {
            'app.kubernetes.io/name': 'ingress-nginx',
            'app.kubernetes.io/component': 'controller',
          },
        },
      });
      // Besides the controller, Prometheus only (it scrapes /metrics on the same port).
      expect(
        peers.map((p) => p.namespaceSelector!.matchLabels!['kubernetes.io/metadata.name']).sort(),
      ).toEqual(['ingress-nginx', 'monitoring']);
    },
  );

  it('the optional KEDA scaling reads the queue depth metric the API serves, and the settings file only settings', () => {
    const scaled = parseYaml(read('deploy/kubernetes/components/keda-worker-scaling/scaled-object.yaml'))[0];
    expect(scaled.spec.scaleTargetRef.name).toBe('bulk-messaging-worker');
    expect(scaled.spec.triggers[0].metadata.query).toMatch(
      /max by \(queue\) \(bulk_queue_jobs\{state="waiting"/,
    );
    const keys = Object.keys(envFileKeys('deploy/kubernetes/base/settings.env'));
    expect(keys.length).toBeGreaterThan(5);
    expect(keys.filter((k) => !SETTINGS.includes(k))).toEqual([]);
  });
});
