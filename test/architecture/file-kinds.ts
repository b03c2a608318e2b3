/**
 * The files of src/ that hold a provider: a class that a module's `providers` array lists, or
 * one Nest decorates as injectable, a controller, a module or a queue processor.
 */
import { readFileSync } from 'node:fs';
import { basename, relative } from 'node:path';
import ts from 'typescript';
import { SRC, walk } from './folder-graph.js';
import { providerDeclarations } from './module-providers.js';

const NEST_CLASS = new Set(['Injectable', 'Controller', 'Module', 'Processor', 'Command', 'SubCommand']);

function decoratorName(d: ts.Decorator): string | undefined {
  const e = d.expression;
  const callee = ts.isCallExpression(e) ? e.expression : e;
  return ts.isIdentifier(callee) ? callee.text : undefined;
}

/** file (relative to src/) → the provider classes it declares. */
export function providerFiles(root = SRC): Map<string, string[]> {
  const listed = new Set(providerDeclarations(root).map((d) => d.provider));
  const out = new Map<string, string[]>();
  for (const path of walk(root)) {
    const sf = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const classes = sf.statements
      .filter((s): s is ts.ClassDeclaration => ts.isClassDeclaration(s) && !!s.name)
      .filter(
        (c) =>
          listed.has(c.name!.text) ||
          (ts.getDecorators(c) ?? []).some((d) => NEST_CLASS.has(decoratorName(d) ?? '')),
      )
      .map((c) => c.name!.text);
    if (classes.length) out.set(relative(root, path).split('\\').join('/'), classes);
  }
  return out;
}

/** Whether a file's name says its kind: `<name>.<kind>.ts`. */
export const namesItsKind = (file: string) => basename(file, '.ts').includes('.');
