import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { SETTINGS as SETTING_DEFINITIONS } from '../../src/config/settings/index.js';

/** What the deploy/ tests share: the repository's paths, its settings, and the manifests as parsed. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const KUBE_DIR = join(ROOT, 'deploy/kubernetes');

export const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

/** Every setting the service reads (the names declared in src/config/settings/). */
export const SETTINGS = Object.keys(SETTING_DEFINITIONS);

// A loose shape: what the checks read of a Kubernetes object.
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [k: string]: any;
};

export function parseYaml(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((d) => {
      if (d.errors.length) throw new Error(d.errors.map((e) => e.message).join('; '));
      return d.toJSON() as K8sObject | null;
    })
    .filter((o): o is K8sObject => o !== null);
}

/** Every YAML file under deploy/kubernetes, as written (kustomizations apart). */
export function manifestFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? walk(p) : /\.ya?ml$/.test(n) ? [p] : [];
    });
  return walk(KUBE_DIR)
    .filter((p) => !p.endsWith('kustomization.yaml'))
    .map((p) => relative(ROOT, p));
}

export const KUBECTL = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;

/** `kubectl kustomize DIR` (kustomize as built into kubectl): the objects an apply would send. */
export function render(dir: string): K8sObject[] {
  return parseYaml(
    execFileSync('kubectl', ['kustomize', join(KUBE_DIR, dir)], { encoding: 'utf8', timeout: 60_000 }),
  );
}

/** KEY=value lines of an env file, comments and blank lines left out. */
export function envFileKeys(path: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of read(path).split('\n')) {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (m) out[m[1]] = m[2];
  }
  return out;
}

/**
 * The model class of kubernetes-models (its JSON schemas are Kubernetes 1.33's) or of
 * @kubernetes-models/keda for an object, by apiVersion and kind.
 */
export async function modelFor(o: K8sObject): Promise<{ new (data: unknown): { validate(): void } }> {
  const path = o.apiVersion.startsWith('keda.sh/')
    ? `@kubernetes-models/keda/${o.apiVersion}/${o.kind}`
    : `kubernetes-models/${o.apiVersion}/${o.kind}`;
  const mod = (await import(path)) as Record<string, { new (data: unknown): { validate(): void } }>;
  const model = mod[o.kind];
  if (!model) throw new Error(`no schema for ${o.apiVersion} ${o.kind}`);
  return model;
}
