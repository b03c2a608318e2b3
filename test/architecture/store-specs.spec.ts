import { existsSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every store is tested on real MySQL by a spec of its own, named after it: its statements are
 * the part of the service a unit test cannot reach, and a store without one is a visible failure.
 */

function storesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return storesUnder(path);
    return entry.name.endsWith('.store.ts') ? [path] : [];
  });
}

describe('store specs', () => {
  const stores = storesUnder('src');

  it('finds the stores', () => {
    expect(stores.length).toBeGreaterThan(20);
  });

  it('has test/integration/<store>.int-spec.ts for every *.store.ts', () => {
    const missing = stores
      .map((file) => `test/integration/${basename(file, '.ts')}.int-spec.ts`)
      .filter((spec) => !existsSync(spec));
    expect(missing, `stores without their spec:\n${missing.join('\n')}`).toEqual([]);
  });
});
