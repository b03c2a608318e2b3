/**
 * Where src/ talks to a database: every call of `.query(`, `createQueryBuilder(`,
 * `getRepository(`, anything through `.manager`, and the repository methods (find, insert,
 * update, ...) called on a data source or entity manager (`ds`, `em`, `dataSource`, `manager`).
 * Read with TypeScript's parser, so comments and strings do not count.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import ts from 'typescript';
import { SRC, walk } from './folder-graph.js';

const ALWAYS = new Set(['query', 'createQueryBuilder', 'getRepository']);
const REPOSITORY = new Set([
  'find',
  'findBy',
  'findOne',
  'findOneBy',
  'findOneOrFail',
  'findOneByOrFail',
  'insert',
  'update',
  'delete',
  'save',
  'upsert',
  'count',
  'countBy',
  'increment',
  'decrement',
  'exists',
  'existsBy',
]);
const DATABASE_HANDLE = /(^|\.)(ds|em|dataSource|manager|entityManager)$/;

/** file (relative to src/) → how many query calls it makes. */
export function queryCalls(root = SRC): Map<string, number> {
  const out = new Map<string, number>();
  for (const path of walk(root)) {
    const text = readFileSync(path, 'utf8');
    const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    let n = 0;
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
        const method = node.expression.name.text;
        const receiver = node.expression.expression.getText(sf);
        if (
          ALWAYS.has(method) ||
          (REPOSITORY.has(method) && DATABASE_HANDLE.test(receiver)) ||
          /(^|\.)manager$/.test(receiver)
        )
          n++;
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
    if (n) out.set(relative(root, path).split('\\').join('/'), n);
  }
  return out;
}
