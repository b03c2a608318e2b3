import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The manual holds together: every relative link of the README and of the pages under docs/
 * and deploy/ names a file of the repository, and every `#anchor` a heading of that page; so
 * does every `docs/….md#anchor` a comment of the code points a reader at.
 */
const ROOT = fileURLToPath(new URL('../', import.meta.url));

function filesEnding(dir: string, ext: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesEnding(join(dir, e.name), ext) : e.name.endsWith(ext) ? [join(dir, e.name)] : [],
  );
}
const markdown = (dir: string) => filesEnding(dir, '.md');

/** Prose lines only: fenced blocks and inline code carry no links. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return fenced || line.startsWith('```') ? '' : line.replace(/`[^`]*`/g, '');
  });
}

/** The anchor GitHub gives a heading. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

const anchors = (file: string) =>
  new Set(
    prose(readFileSync(file, 'utf8'))
      .map((l) => /^#{1,6}\s+(.*)$/.exec(l)?.[1])
      .filter((h): h is string => h !== undefined)
      .map(slug),
  );

describe('the links of the manual', () => {
  const pages = [join(ROOT, 'README.md'), ...markdown(join(ROOT, 'docs')), ...markdown(join(ROOT, 'deploy'))];

  it('name files that exist and headings those files have', () => {
    expect(pages.length).toBeGreaterThan(10);
    const broken: string[] = [];
    for (const page of pages) {
      prose(readFileSync(page, 'utf8')).forEach((line, i) => {
        for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) {
          const target = m[1];
          if (/^[a-z]+:/i.test(target)) continue;
          const [path, anchor] = target.split('#');
          const file = path ? join(dirname(page), path) : page;
          const at = `${relative(ROOT, page)}:${i + 1} → ${target}`;
          if (!existsSync(file)) broken.push(`${at}: no such file`);
          else if (anchor && statSync(file).isFile() && file.endsWith('.md') && !anchors(file).has(anchor))
            broken.push(`${at}: no such heading`);
        }
      });
    }
    expect(broken).toEqual([]);
  });

  it('give every page of docs/ one title', () => {
    const titles = markdown(join(ROOT, 'docs')).map((f) => ({
      page: relative(ROOT, f),
      h1: prose(readFileSync(f, 'utf8')).filter((l) => /^# /.test(l)).length,
    }));
    expect(titles.filter((t) => t.h1 !== 1)).toEqual([]);
  });

  it('make the same anchors GitHub does', () => {
    expect(slug('Retention and archives')).toBe('retention-and-archives');
    expect(slug('SMTP (e-mail)')).toBe('smtp-e-mail');
    expect(slug('Health probes (no key)')).toBe('health-probes-no-key');
    expect(slug('`delivery/` in one module')).toBe('delivery-in-one-module');
  });

  it('that the code cites exist, with their headings', () => {
    const cited = filesEnding(join(ROOT, 'src'), '.ts').flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/\bdocs\/[\w/.-]+\.md(?:#[\w-]+)?/g)].map((m) => ({
        at: relative(ROOT, f),
        target: m[0],
      })),
    );
    expect(cited.length).toBeGreaterThan(3);
    const broken = cited.filter(({ target }) => {
      const [path, anchor] = target.split('#');
      const file = join(ROOT, path);
      return !existsSync(file) || (anchor !== undefined && !anchors(file).has(anchor));
    });
    expect(broken).toEqual([]);
  });
});
