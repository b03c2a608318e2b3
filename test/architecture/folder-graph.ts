/**
 * The folder-level import graph of src/: one node per feature folder (src/modules/<name>), per
 * platform folder (src/platform/<name>) and per top folder (src/app, src/config, src/database, ...).
 * Built from the import and export specifiers of every .ts file with TypeScript's own pre-processor.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export const SRC = resolve(import.meta.dirname, '../../src');

/** The .ts files under `dir`, specs and declarations left out. */
export function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.spec.ts') && !p.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The node a file under src/ belongs to, e.g. 'modules/sending', 'platform/http', 'app'. */
export function folderOf(file: string): string {
  const parts = relative(SRC, file).split(sep);
  if (parts.length === 1) return '.';
  if ((parts[0] === 'modules' || parts[0] === 'platform') && parts.length > 2)
    return `${parts[0]}/${parts[1]}`;
  return parts[0];
}

export interface ImportEdge {
  from: string;
  to: string;
  file: string;
  specifier: string;
}

/** Every relative import between two different folders. */
export function folderEdges(root = SRC): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of walk(root)) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const ref of info.importedFiles) {
      const specifier = ref.fileName;
      if (!specifier.startsWith('.')) continue;
      const target = resolve(dirname(file), specifier);
      if (!target.startsWith(SRC + sep)) continue;
      const from = folderOf(file);
      const to = folderOf(target);
      if (from !== to) edges.push({ from, to, file: relative(SRC, file), specifier });
    }
  }
  return edges;
}

export function adjacency(edges: ImportEdge[]): Map<string, Set<string>> {
  const g = new Map<string, Set<string>>();
  for (const e of edges) {
    if (!g.has(e.from)) g.set(e.from, new Set());
    if (!g.has(e.to)) g.set(e.to, new Set());
    g.get(e.from)!.add(e.to);
  }
  return g;
}

/** Strongly connected components with more than one folder (each is a cycle), by Tarjan. */
export function cycles(g: Map<string, Set<string>>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of g.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const v of [...g.keys()].sort()) if (!idx.has(v)) visit(v);
  return out;
}
