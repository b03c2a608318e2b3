import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DOC_PAGE_ORDER, examplePages, shapeDifferences } from './readme-examples.js';

describe("the README test's comparison of an example with the real answer", () => {
  const shown = {
    recipients: [{ recipient: '260971234567', encoding: 'GSM-7', characters: 36, segments: 1, cost: 0.25 }],
    totals: { accepted: 1, balance: 99.25, currency: 'ZMW' },
  };

  it('fails on a wrong count or amount, not on an identifier or a time', () => {
    const real = {
      recipients: [{ recipient: '260979999999', encoding: 'GSM-7', characters: 43, segments: 1, cost: 0.25 }],
      totals: { accepted: 1, balance: 99.25, currency: 'ZMW' },
    };
    expect(shapeDifferences(shown, real)).toEqual(['$.recipients[0].characters: 43, the example shows 36']);
    expect(
      shapeDifferences(shown, { ...real, recipients: [{ ...real.recipients[0], characters: 36 }] }),
    ).toEqual([]);
  });

  it('still takes null in the README for any value', () => {
    expect(shapeDifferences({ cancelled: null }, { cancelled: 3 })).toEqual([]);
  });
});

describe('the pages whose examples the README test runs', () => {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const pages = examplePages(root);

  it('start with the README and take in every page of docs/ with a block to run', () => {
    expect(pages[0].file).toBe('README.md');
    // Found here without the parser: any sh/bash fence whose last non-blank line before is not a
    // `not run` marker.
    const withBlocks = (dir: string): string[] =>
      readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
        const path = `${dir}/${e.name}`;
        if (e.isDirectory()) return withBlocks(path);
        if (!e.name.endsWith('.md')) return [];
        const lines = readFileSync(join(root, path), 'utf8').split('\n');
        const runs = lines.some((l, i) => {
          if (!/^```(sh|bash)\s*$/.test(l)) return false;
          const before =
            lines
              .slice(0, i)
              .filter((x) => x.trim() !== '')
              .at(-1) ?? '';
          return !/^<!--\s*not run:/.test(before);
        });
        return runs ? [path] : [];
      });
    const run = pages.map((p) => p.file);
    for (const page of withBlocks('docs')) expect(run, `${page} has blocks to run`).toContain(page);
  });

  it('call the CLI as node dist/cli.js or npm run cli, never through npx (which may fetch a package of that name)', () => {
    const files = [
      'README.md',
      ...(readdirSync(join(root, 'docs'), { recursive: true }) as string[])
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    for (const file of files)
      expect(readFileSync(join(root, file), 'utf8'), file).not.toMatch(/\bnpx\s+bulk-messaging\b/);
  });

  it('list in DOC_PAGE_ORDER only pages that exist and have a block to run', () => {
    const run = pages.map((p) => p.file);
    for (const page of DOC_PAGE_ORDER) expect(run, `${page} in DOC_PAGE_ORDER`).toContain(page);
  });

  it('give a reason for every block they do not run', () => {
    for (const p of pages)
      for (const e of p.examples.filter((x) => x.skip))
        expect(e.skip!.length, `${p.file}:${e.line}`).toBeGreaterThan(5);
  });
});
