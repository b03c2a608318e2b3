import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The repository speaks for itself: no code comment, OpenAPI text, test or document points a
 * reader at a document that is not in it (numbered sections of outside specifications).
 */
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DIRS = ['src', 'test', 'bench', 'soak', 'docker', 'docs', 'deploy', 'clients'];
const OUTSIDE = /\b(?:spec|decisions|interface-spec)\s*§|\bdecisions\.md\b|\binterface-spec\.md\b/;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory())
      return ['node_modules', 'results', 'dist'].includes(name) ? [] : files(path);
    return /\.(ts|mjs|js|md|yaml|conf|sql)$|Dockerfile$/.test(name) ? [path] : [];
  });
}

describe('the repository is self-contained', () => {
  it('cites no outside document in the code, tests, Docker files or README', () => {
    const all = [join(ROOT, 'README.md'), ...DIRS.flatMap((d) => files(join(ROOT, d)))];
    expect(all.length).toBeGreaterThan(50);
    const hits = all.flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${relative(ROOT, f)}:${i + 1}` }))
        .filter(({ line }) => OUTSIDE.test(line) && !line.includes('const OUTSIDE'))
        .map(({ at, line }) => `${at}: ${line.trim()}`),
    );
    expect(hits).toEqual([]);
  });
});
