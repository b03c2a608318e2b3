/**
 * The rooms of a feature folder: each folder directly under src/modules/<feature> is a room, the
 * files beside them are the feature's top floor ('.'). Built like the folder graph, one level down.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { SRC, walk, type ImportEdge } from './folder-graph.js';

/** The room of a file under src/modules/<feature>/, or undefined for a file outside it. */
export function roomOf(feature: string, file: string): string | undefined {
  const rel = relative(join(SRC, 'modules', feature), file);
  if (rel.startsWith('..')) return undefined;
  const parts = rel.split(sep);
  return parts.length === 1 ? '.' : parts[0];
}

/** Every relative import from a file of `feature` to a file of `target` (the same feature by default). */
export function roomEdges(feature: string, target = feature): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of walk(join(SRC, 'modules', feature))) {
    for (const ref of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!ref.fileName.startsWith('.')) continue;
      const to = resolve(dirname(file), ref.fileName.replace(/\.js$/, '.ts'));
      const room = roomOf(target, to);
      if (room === undefined) continue;
      edges.push({
        from: roomOf(feature, file)!,
        to: room,
        file: relative(SRC, file),
        specifier: relative(join(SRC, 'modules', target), to)
          .split(sep)
          .join('/'),
      });
    }
  }
  return edges;
}
