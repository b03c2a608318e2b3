/**
 * node dist/bench-build/bench/profile-top.js <file.cpuprofile> [count]
 * Prints the functions with the most self time in a V8 CPU profile (`node --cpu-prof`, or
 * `npm run bench -- --only B1 --cpu-prof <dir>` for the API under B1), each with its share of
 * the busy (not idle) samples; the share of each package (node_modules/<name>), of the
 * project's own code and of Node's internals; and the functions with the most total time
 * (themselves and what they call).
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

const [file, countArg] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-top <file.cpuprofile> [count]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
};
const hits = new Map<number, number>();
for (const s of profile.samples) hits.set(s, (hits.get(s) ?? 0) + 1);
const idle = profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id);
const total = profile.samples.length - idle.reduce((a, id) => a + (hits.get(id) ?? 0), 0);
const byFunction = new Map<string, number>();
const byPlace = new Map<string, number>();

function place(url: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.includes('/dist/')) return '(project)';
  if (url.startsWith('node:')) return '(node)';
  return url ? url : '(native / V8)';
}

for (const n of profile.nodes) {
  const h = hits.get(n.id) ?? 0;
  if (!h) continue;
  const { functionName, url, lineNumber } = n.callFrame;
  const short = url.replace(/^.*\/(node_modules|dist)\//, '$1/');
  const name = `${functionName || '(anonymous)'} ${short ? `${short}:${lineNumber + 1}` : ''}`.trim();
  byFunction.set(name, (byFunction.get(name) ?? 0) + h);
  const where = ['(idle)', '(program)', '(garbage collector)'].includes(functionName)
    ? functionName
    : place(url);
  byPlace.set(where, (byPlace.get(where) ?? 0) + h);
}

const pct = (h: number) => `${((100 * h) / total).toFixed(1).padStart(5)}%`;
const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
// Total time: a function's own samples and those of everything below it, counted once per
// stack even when it recurses.
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const inclusive = new Map<string, number>();
for (const n of profile.nodes) {
  const h = hits.get(n.id) ?? 0;
  if (!h || idle.includes(n.id)) continue;
  const seen = new Set<string>();
  for (let id: number | undefined = n.id; id !== undefined; id = parent.get(id)) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (!url) continue;
    const name = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${lineNumber + 1}`;
    if (seen.has(name)) continue;
    seen.add(name);
    inclusive.set(name, (inclusive.get(name) ?? 0) + h);
  }
}
const ms = profile.timeDeltas.reduce((a, b) => a + b, 0) / 1000;
console.log(
  `${profile.samples.length} samples over ${(ms / 1000).toFixed(1)} s, ${total} of them busy (shares below are of those)\n\nself time by function:`,
);
for (const [name, h] of top(byFunction, Number(countArg ?? 30))) console.log(`${pct(h)}  ${name}`);
console.log('\nself time by package:');
for (const [name, h] of top(byPlace, 25)) console.log(`${pct(h)}  ${name}`);
console.log('\ntotal time by function:');
for (const [name, h] of top(inclusive, Number(countArg ?? 30))) console.log(`${pct(h)}  ${name}`);
