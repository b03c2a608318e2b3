import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../../', import.meta.url).pathname;
const GENERATED = join(ROOT, 'clients/typescript/src/generated/api.ts');

/** The client's types are openapi-typescript's reading of openapi.json, never edited by hand. */
describe('the generated types of the TypeScript client', () => {
  it('are what openapi-typescript makes of openapi.json (else: run npm run sdk)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bm-sdk-'));
    try {
      const out = join(dir, 'api.ts');
      // The same generator and arguments as `npm run sdk` (a field with a default stays optional in
      // a request body: the service fills it in).
      await promisify(execFile)(
        process.execPath,
        [
          join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'),
          'openapi.json',
          '--default-non-nullable',
          'false',
          '--output',
          out,
        ],
        { cwd: ROOT },
      );
      const same = readFileSync(out, 'utf8') === readFileSync(GENERATED, 'utf8');
      expect(
        same,
        'clients/typescript/src/generated/api.ts differs from what openapi.json gives: run npm run sdk and commit the result',
      ).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
