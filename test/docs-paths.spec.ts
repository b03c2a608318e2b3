import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The manual names files that exist: every path in inline code of the README and of the pages
 * under docs/ and deploy/ that starts at a source folder of the repository (`src/…`, `test/…`,
 * `bench/…`) names a file or folder of the tree, and every bare source file name
 * (`send.service.ts`, `delivery/lifecycle/transitions.ts`) ends the path of one. A glob (`*`, `**`) or a
 * placeholder (`<db>`, `…`) stands for any name, so such a path needs one match. A file a run
 * writes (one .gitignore names, such as `bench/results/partial.json`) or an operator copies from
 * its `.example` needs no copy in the tree.
 */
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SOURCE_ROOTS = ['src', 'test', 'bench', 'scripts', 'docker', 'soak', 'deploy'];
const SKIPPED = new Set(['node_modules', 'dist', 'coverage', '.git']);

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (SKIPPED.has(e.name)) return [];
    const path = join(dir, e.name);
    return e.isDirectory() ? [`${relative(ROOT, path)}/`, ...walk(path)] : [relative(ROOT, path)];
  });
}

/** The repository's own files at its root and in the source folders, and every folder with a trailing slash. */
const tree = [
  ...readdirSync(ROOT, { withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name),
  ...SOURCE_ROOTS.flatMap((r) => [`${r}/`, ...walk(join(ROOT, r))]),
];

const pages = [
  'README.md',
  ...walk(join(ROOT, 'docs')).filter((p) => p.endsWith('.md')),
  ...walk(join(ROOT, 'deploy')).filter((p) => p.endsWith('.md')),
];

/** Inline code spans outside fenced blocks, with the line each starts on (a span may wrap). */
function codeSpans(text: string): { line: number; code: string }[] {
  let fenced = false;
  const prose = text
    .split('\n')
    .map((line) => {
      const fence = line.trimStart().startsWith('```');
      if (fence) fenced = !fenced;
      return fenced || fence ? '' : line;
    })
    .join('\n');
  return [...prose.matchAll(/`([^`]+)`/g)].map((m) => ({
    line: prose.slice(0, m.index).split('\n').length,
    code: m[1].replace(/\s*\n\s*/g, ' '),
  }));
}

/** The paths a span names: words that start at a source folder, or a bare source file name. */
function pathsIn(code: string): string[] {
  const rooted = new RegExp(`(?:^|[\\s(=])((?:${SOURCE_ROOTS.join('|')})/[^\\s\`'"),;:]*)`, 'g');
  const paths = [...code.matchAll(rooted)].map((m) => m[1].replace(/\.$/, ''));
  if (
    paths.length === 0 &&
    /^[\w./<>*…-]+\.(?:ts|mjs|js)$/.test(code) &&
    !/^(?:dist|node_modules)\//.test(code)
  )
    paths.push(code);
  return paths;
}

/** A path as a pattern: a glob or placeholder matches within one name, `**` and `…` across folders. */
function pattern(path: string): RegExp {
  const body = path
    .split(/(\*\*\/?|\*|<[^>]*>|…|\.\.\.)/)
    .map((part, i) => {
      if (i % 2 === 0) return part.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
      if (part.startsWith('**') || part === '…' || part === '...') return '.*';
      return '[^/]*';
    })
    .join('');
  return new RegExp(`${body}${path.endsWith('/') ? '' : '/?'}$`);
}

/** The paths of `paths` that .gitignore names: what runs write, never committed. */
function ignored(paths: string[]): Set<string> {
  const git = spawnSync('git', ['check-ignore', '--stdin'], {
    cwd: ROOT,
    input: paths.join('\n'),
    encoding: 'utf8',
  });
  return new Set(git.stdout.split('\n').filter(Boolean));
}

function exists(path: string): boolean {
  const rooted = SOURCE_ROOTS.some((r) => path === r || path.startsWith(`${r}/`));
  const re = pattern(path);
  // A rooted path is matched from the repository's root; a bare name as the end of any path.
  const anchored = rooted ? new RegExp(`^${re.source}`) : new RegExp(`(?:^|/)${re.source}`);
  return tree.some((p) => anchored.test(p));
}

describe('the paths the manual names', () => {
  it('reads the paths out of inline code, rooted or bare', () => {
    expect(pathsIn('src/main.ts')).toEqual(['src/main.ts']);
    expect(pathsIn('node dist/bench-build/bench/run.js --only B1')).toEqual([]);
    expect(pathsIn('npx vitest run test/docs-paths.spec.ts')).toEqual(['test/docs-paths.spec.ts']);
    expect(pathsIn('send.committer.ts')).toEqual(['send.committer.ts']);
    expect(pathsIn('dist/main.js')).toEqual([]);
    expect(pathsIn('RETENTION_PAUSE_FACTOR')).toEqual([]);
    expect(codeSpans('a `src/a\n.ts` b\n```\n`src/fenced.ts`\n```\n`x`')).toEqual([
      { line: 1, code: 'src/a .ts' },
      { line: 6, code: 'x' },
    ]);
  });

  it('takes globs and placeholders for any name, and finds a missing file missing', () => {
    expect(exists('src/database/migrations/<db>/')).toBe(true);
    expect(exists('test/e2e/*.e2e-spec.ts')).toBe(true);
    expect(exists('src/modules/*')).toBe(true);
    expect(exists('*.store.ts')).toBe(true);
    expect(exists('vitest.config.ts')).toBe(true);
    expect(exists('delivery/lifecycle/transitions.ts')).toBe(
      exists('src/modules/delivery/lifecycle/transitions.ts'),
    );
    expect(exists('src/no-such-file.ts')).toBe(false);
    expect(exists('no-such-file.ts')).toBe(false);
    expect(exists('src/modules/no-such-folder/')).toBe(false);
    expect([...ignored(['bench/results/partial.json', 'bench/results/latest.json', 'src/main.ts'])]).toEqual([
      'bench/results/partial.json',
    ]);
  });

  it('name files and folders of the tree', () => {
    expect(pages.length).toBeGreaterThan(10);
    const missing = pages.flatMap((page) =>
      codeSpans(readFileSync(join(ROOT, page), 'utf8')).flatMap(({ line, code }) =>
        pathsIn(code)
          .filter((path) => !exists(path) && !existsSync(join(ROOT, `${path}.example`)))
          .map((path) => ({ path, at: `${page}:${line} → ${path}` })),
      ),
    );
    const written = ignored(missing.map((m) => m.path));
    expect(missing.filter((m) => !written.has(m.path)).map((m) => m.at)).toEqual([]);
  });
});
