/**
 * node dist/bench-build/bench/profile-diff.js <api.cpuprofile> <api µs> <baseline.cpuprofile> <baseline µs> [count]
 *
 * Where the API's CPU per request goes beyond the baseline app's: each profile's busy samples
 * (start-up's module loading left out) are turned into microseconds per request by the CPU per
 * request that B1 measured for that process (`npm run bench -- --only B1 --cpu-prof <dir>`
 * prints both and writes both profiles), then compared package by package and function by
 * function (self time), largest difference first.
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
}

/**
 * Frames of module loading: start-up, not requests. The ESM loader reads each module's source
 * with fs/promises, whose continuations run from the event loop with none of the loader's frames
 * above them; nothing on a request's path reads files that way.
 */
const LOADING =
  /node:internal\/modules\/|^node:internal\/deps\/cjs-module-lexer|^node:internal\/fs\/promises/;

function place(url: string, functionName: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.includes('/dist/')) return '(project)';
  if (url.startsWith('node:')) return '(node)';
  return url || `(${functionName.replace(/[()]/g, '')})`;
}

function perRequest(file: string, usPerRequest: number) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const loading = new Map<number, boolean>();
  const isLoading = (id: number): boolean => {
    const known = loading.get(id);
    if (known !== undefined) return known;
    const up = parent.get(id);
    const v = LOADING.test(byId.get(id)!.callFrame.url) || (up !== undefined && isLoading(up));
    loading.set(id, v);
    return v;
  };
  const fn = new Map<string, number>();
  const pkg = new Map<string, number>();
  let busy = 0;
  for (const id of profile.samples) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)' || isLoading(id)) continue;
    busy++;
    const short = url.replace(/^.*\/(node_modules|dist)\//, '');
    const name = `${functionName || '(anonymous)'} ${short ? `${short}:${lineNumber + 1}` : ''}`.trim();
    fn.set(name, (fn.get(name) ?? 0) + 1);
    const where = place(url, functionName);
    pkg.set(where, (pkg.get(where) ?? 0) + 1);
  }
  const scale = (m: Map<string, number>) => new Map([...m].map(([k, v]) => [k, (v * usPerRequest) / busy]));
  return { fn: scale(fn), pkg: scale(pkg) };
}

const [apiFile, apiUs, baseFile, baseUs, countArg] = process.argv.slice(2);
if (!apiFile || !apiUs || !baseFile || !baseUs)
  throw new Error(
    'usage: profile-diff <api.cpuprofile> <api µs> <baseline.cpuprofile> <baseline µs> [count]',
  );
const app = perRequest(apiFile, Number(apiUs));
const base = perRequest(baseFile, Number(baseUs));
const count = Number(countArg ?? 30);

for (const [title, a, b] of [
  ['package', app.pkg, base.pkg],
  ['function (self time)', app.fn, base.fn],
] as const) {
  const rows = [...new Set([...a.keys(), ...b.keys()])]
    .map((k) => ({ k, a: a.get(k) ?? 0, b: b.get(k) ?? 0 }))
    .sort((x, y) => y.a - y.b - (x.a - x.b));
  console.log(`\nµs per request by ${title}: API, baseline, difference`);
  for (const r of rows.slice(0, count))
    console.log(
      `${r.a.toFixed(0).padStart(6)} ${r.b.toFixed(0).padStart(6)} ${(r.a - r.b).toFixed(0).padStart(6)}  ${r.k}`,
    );
}
