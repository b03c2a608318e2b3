import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const src = join(root, 'src');

function files(dir: string, suffix: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(suffix))
    .map((e) => join(e.parentPath, e.name));
}

/**
 * A feature owns its HTTP shapes: the response DTO and its mapper in one file beside the
 * controller, and the validated body reaching the input mapper typed. These rules keep it so.
 */
describe('HTTP shapes', () => {
  it('keeps every response DTO in a feature: the shared platform declares only the error envelope', () => {
    const declaring = files(join(src, 'platform'), '.ts').filter((f) =>
      /^export class \w+Dto\b/m.test(readFileSync(f, 'utf8')),
    );
    expect(declaring.map((f) => relative(root, f))).toEqual(['src/platform/openapi/error-envelope.dto.ts']);
  });

  it('never casts a validated body in a controller, so the DTO and the input mapper stay tied', () => {
    const casts = files(join(src, 'modules'), '.controller.ts').filter((f) =>
      /\bas Record<string, unknown>/.test(readFileSync(f, 'utf8')),
    );
    expect(casts.map((f) => relative(root, f))).toEqual([]);
  });

  it('reads the caller one way in controllers: @Auth(), never authOf(req)', () => {
    const readers = files(join(src, 'modules'), '.controller.ts').filter((f) =>
      /\bauthOf\(/.test(readFileSync(f, 'utf8')),
    );
    expect(readers.map((f) => relative(root, f))).toEqual([]);
  });
});
