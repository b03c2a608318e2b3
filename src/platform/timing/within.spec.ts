import { describe, expect, it } from 'vitest';
import { within } from './within.js';

const after = <T>(ms: number, value: T) => new Promise<T>((r) => setTimeout(() => r(value), ms));

describe('within', () => {
  it('is true when the work settles before the time runs out', async () => {
    expect(await within(after(5, 'done'), 1000)).toBe(true);
  });

  it('is false when the time runs out first, whatever the work later answers', async () => {
    expect(await within(after(200, 'late'), 10)).toBe(false);
  });

  it('passes a rejection on', async () => {
    await expect(within(Promise.reject(new Error('broken')), 1000)).rejects.toThrow('broken');
  });
});
