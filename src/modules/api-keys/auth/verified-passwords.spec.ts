import { afterEach, describe, expect, it, vi } from 'vitest';
import { VerifiedPasswords } from './verified-passwords.js';

describe('VerifiedPasswords', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('holds a verified pair by a keyed digest that is neither the password nor the same in another process', () => {
    const a = new VerifiedPasswords(60_000);
    const b = new VerifiedPasswords(60_000);
    const digest = a.digest('7', 'alice', 'correct-horse-battery');
    expect(digest).not.toContain('correct-horse-battery');
    expect(digest).toBe(a.digest('7', 'alice', 'correct-horse-battery'));
    expect(b.digest('7', 'alice', 'correct-horse-battery')).not.toBe(digest);
    expect(a.digest('8', 'alice', 'correct-horse-battery')).not.toBe(digest);
  });

  it('answers a hit for the same password tag, and nothing for another pair', () => {
    const cache = new VerifiedPasswords(60_000);
    const digest = cache.digest('7', 'alice', 'correct-horse-battery');
    expect(cache.has(digest, 'tag1')).toBe(false);
    cache.add(digest, '7', 'tag1');
    expect(cache.has(digest, 'tag1')).toBe(true);
    expect(cache.has(cache.digest('7', 'alice', 'wrong'), 'tag1')).toBe(false);
  });

  it('forgets a pair once its time to live has passed', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const cache = new VerifiedPasswords(60_000);
    const digest = cache.digest('7', 'alice', 'pw');
    cache.add(digest, '7', 'tag1');
    vi.advanceTimersByTime(59_999);
    expect(cache.has(digest, 'tag1')).toBe(true);
    vi.advanceTimersByTime(2);
    expect(cache.has(digest, 'tag1')).toBe(false);
  });

  it("voids a pair when the account's password changes (another tag)", () => {
    const cache = new VerifiedPasswords(60_000);
    const digest = cache.digest('7', 'alice', 'pw');
    cache.add(digest, '7', 'tag1');
    expect(cache.has(digest, 'tag2')).toBe(false);
    // Gone for good, even if the old tag came back.
    expect(cache.has(digest, 'tag1')).toBe(false);
  });

  it('voids the pairs of an account forgotten (suspended) and keeps those verified after', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const cache = new VerifiedPasswords(60_000);
    const before = cache.digest('7', 'alice', 'pw');
    const other = cache.digest('8', 'bob', 'pw');
    cache.add(before, '7', 't');
    cache.add(other, '8', 't');
    vi.advanceTimersByTime(10);
    cache.forgetAccount('7');
    expect(cache.has(before, 't')).toBe(false);
    expect(cache.has(other, 't')).toBe(true);
    vi.advanceTimersByTime(10);
    cache.add(before, '7', 't');
    expect(cache.has(before, 't')).toBe(true);
  });

  it('holds at most its bound, dropping the oldest pair', () => {
    const cache = new VerifiedPasswords(60_000, 2);
    const d = ['a', 'b', 'c'].map((p) => cache.digest('7', 'alice', p));
    for (const x of d) cache.add(x, '7', 't');
    expect(d.map((x) => cache.has(x, 't'))).toEqual([false, true, true]);
  });

  it('remembers nothing with a time to live of zero', () => {
    const cache = new VerifiedPasswords(0);
    const digest = cache.digest('7', 'alice', 'pw');
    cache.add(digest, '7', 't');
    expect(cache.has(digest, 't')).toBe(false);
  });
});
