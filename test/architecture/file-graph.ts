/**
 * The file-level import graph of src/ (type-only imports included): a cycle between files means
 * neither can be read or type-checked without the other, even where folders point one way.
 */
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';
import { SRC, walk } from './folder-graph.js';

/** file (relative to src/) → the files it imports. */
export function fileGraph(root = SRC): Map<string, Set<string>> {
  const g = new Map<string, Set<string>>();
  for (const file of walk(root)) {
    const from = relative(root, file);
    const to = new Set<string>();
    for (const ref of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!ref.fileName.startsWith('.')) continue;
      to.add(relative(root, resolve(dirname(file), ref.fileName.replace(/\.js$/, '.ts'))));
    }
    g.set(from, to);
  }
  return g;
}
