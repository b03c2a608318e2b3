import { describe, expect, it } from 'vitest';
import { idempotencyFingerprint } from './fingerprint.js';

const SECRET = 'a-server-secret-of-32-characters-at-least';

describe('idempotencyFingerprint', () => {
  it('leaves out every password field, at any depth and in any case, and nothing else', () => {
    const fp = (body: unknown) => idempotencyFingerprint(SECRET, 'POST', '/x', body).toString('hex');
    expect(fp({ to: '1', password: 'a', auth: { Password: 'b' } })).toBe(
      fp({ auth: { PASSWORD: 'c' }, to: '1', password: 'd' }),
    );
    expect(fp({ to: '1', password: 'a' })).toBe(fp({ to: '1' }));
    expect(fp({ to: '1', passwords: 'a' })).not.toBe(fp({ to: '1', passwords: 'b' }));
    expect(fp({ to: '1' })).not.toBe(fp({ to: '2' }));
  });

  it('differs with another secret, method or path', () => {
    const one = idempotencyFingerprint(SECRET, 'POST', '/x', { a: 1 });
    expect(idempotencyFingerprint(`${SECRET}!`, 'POST', '/x', { a: 1 }).equals(one)).toBe(false);
    expect(idempotencyFingerprint(SECRET, 'POST', '/y', { a: 1 }).equals(one)).toBe(false);
    expect(idempotencyFingerprint(SECRET, 'PUT', '/x', { a: 1 }).equals(one)).toBe(false);
    expect(one).toHaveLength(32);
  });
});
