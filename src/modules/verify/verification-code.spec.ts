import { describe, expect, it } from 'vitest';
import { codeDigest, newCode } from './verification-code.js';

const SECRET = 'a-server-secret-of-32-characters-at-least';

describe('verification codes', () => {
  it('makes codes of the asked number of digits', () => {
    for (const length of [4, 6, 10]) expect(newCode(length)).toMatch(new RegExp(`^\\d{${length}}$`));
  });

  it('digests a code under the secret, bound to its verification', () => {
    const d = codeDigest(SECRET, 'v1', '123456');
    expect(d).toHaveLength(32);
    expect(d.toString('hex')).not.toContain('123456');
    expect(d.equals(codeDigest(SECRET, 'v1', '123456'))).toBe(true);
    expect(d.equals(codeDigest(SECRET, 'v2', '123456'))).toBe(false);
    expect(d.equals(codeDigest(SECRET, 'v1', '123457'))).toBe(false);
    expect(d.equals(codeDigest(`${SECRET}x`, 'v1', '123456'))).toBe(false);
  });
});
