import { afterEach, describe, expect, it, vi } from 'vitest';
import { RepeatLimiter } from './repeat-limiter.js';

describe('RepeatLimiter', () => {
  afterEach(() => vi.useRealTimers());

  it('writes the first warning of a kind, counts the repeats within the window, and sums them up when it closes', () => {
    vi.useFakeTimers();
    const lines: string[] = [];
    const limiter = new RepeatLimiter({ warn: (m) => lines.push(m) }, 5000);
    for (let i = 0; i < 1800; i++)
      limiter.warn(`${(i % 7) + 1} delivery report(s) not applied: Connection lost`);
    limiter.warn('sweep failed: ECONNREFUSED');
    expect(lines).toEqual([
      '1 delivery report(s) not applied: Connection lost',
      'sweep failed: ECONNREFUSED',
    ]);
    vi.advanceTimersByTime(5000);
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatch(
      /^1799 more like this in the last 5 s, the latest: \d delivery report\(s\) not applied: Connection lost$/,
    );
    limiter.warn('2 delivery report(s) not applied: Connection lost'); // a new window
    expect(lines).toHaveLength(4);
  });

  it('flush writes the pending summaries at once', () => {
    const lines: string[] = [];
    const limiter = new RepeatLimiter({ warn: (m) => lines.push(m) }, 60_000);
    limiter.warn('a');
    limiter.warn('a');
    limiter.flush();
    expect(lines).toEqual(['a', '1 more like this in the last 60 s, the latest: a']);
  });
});
