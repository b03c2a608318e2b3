import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The manual holds together: every relative link of the README and of the pages under docs/
 * and deploy/ names a file of the repository, and every `#anchor` a heading of that page.
 */
const ROOT = fileURLToPath(new URL('../', import.meta.url));

function markdown(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? markdown(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
  );
}

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

  it('make the same anchors GitHub does', () => {
    expect(slug('Retention and archives')).toBe('retention-and-archives');
    expect(slug('SMTP (e-mail)')).toBe('smtp-e-mail');
    expect(slug('Health probes (no key)')).toBe('health-probes-no-key');
    expect(slug('`delivery/` in one module')).toBe('delivery-in-one-module');
  });
});
