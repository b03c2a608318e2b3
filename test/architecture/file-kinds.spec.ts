import { describe, expect, it } from 'vitest';
import { namesItsKind, providerFiles } from './file-kinds.js';

/**
 * A provider's file says what it is as well as what it is about, `<name>.<kind>.ts`
 * (`send.committer.ts`, `due.scanner.ts`, `api-key.cache.ts`), so a folder's listing reads as
 * its parts. The CLI's command groups in src/app keep the names the group list gives them.
 */
const UNNAMED_KINDS = ['app/cli-accounts-group.ts', 'app/cli-db-group.ts', 'app/cli-keys-group.ts'];

describe('file names of providers', () => {
  const files = providerFiles();
  const without = [...files.keys()].filter((f) => !namesItsKind(f));

  it('finds the providers', () => {
    expect(files.get('modules/sending/send.service.ts')).toEqual(['SendService']);
    expect(files.size).toBeGreaterThan(100);
  });

  it('names every provider file after its kind but the few listed', () => {
    const fresh = without.filter((f) => !UNNAMED_KINDS.includes(f)).map((f) => `${f} (${files.get(f)})`);
    expect(fresh, fresh.join('\n')).toEqual([]);
  });

  it('keeps the list to files that still lack a kind', () => {
    expect(UNNAMED_KINDS.filter((f) => !without.includes(f))).toEqual([]);
  });
});
