/**
 * The providers each Nest module of src/ declares, read from the source with TypeScript's parser:
 * every `providers: [...]` array of a `@Module({...})` or of a dynamic module a module returns.
 * A provider is named by its class or, for `{ provide: TOKEN, ... }`, by its token.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import ts from 'typescript';
import { SRC, walk } from './folder-graph.js';

export interface Declaration {
  /** The class or token provided. */
  provider: string;
  /** The file (relative to src/) whose `providers` array lists it. */
  file: string;
  /** Where in the file: `line:column` of the array. */
  at: string;
}

function name(expr: ts.Expression, sf: ts.SourceFile): string {
  if (ts.isObjectLiteralExpression(expr)) {
    const provide = expr.properties.find(
      (p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && p.name.getText(sf) === 'provide',
    );
    if (provide) return provide.initializer.getText(sf);
  }
  return expr.getText(sf);
}

/** Every provider declaration in src/ (a spread such as `...COMMANDS` counts as one entry). */
export function providerDeclarations(root = SRC): Declaration[] {
  const out: Declaration[] = [];
  for (const path of walk(root)) {
    const text = readFileSync(path, 'utf8');
    if (!text.includes('providers')) continue;
    const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const file = relative(root, path).split('\\').join('/');
    const visit = (node: ts.Node) => {
      if (
        ts.isPropertyAssignment(node) &&
        node.name.getText(sf) === 'providers' &&
        ts.isArrayLiteralExpression(node.initializer)
      ) {
        const { line, character } = sf.getLineAndCharacterOfPosition(node.initializer.getStart(sf));
        for (const el of node.initializer.elements)
          out.push({ provider: name(el as ts.Expression, sf), file, at: `${line + 1}:${character + 1}` });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out;
}

/** Providers that more than one `providers` array declares, each with where. */
export function declaredTwice(decls = providerDeclarations()): string[] {
  const by = new Map<string, Declaration[]>();
  for (const d of decls) by.set(d.provider, [...(by.get(d.provider) ?? []), d]);
  return [...by]
    .filter(([, ds]) => new Set(ds.map((d) => `${d.file}@${d.at}`)).size > 1)
    .map(([p, ds]) => `${p}: ${ds.map((d) => `${d.file}:${d.at}`).join(', ')}`);
}
