import { describe, expect, it } from 'vitest';
import { conversionTooLow, prefixOf } from './pumping-rules.js';

describe('pumping rules', () => {
  it('takes all but the last 3 digits as the prefix', () => {
    expect(prefixOf('260971234567')).toBe('260971234');
  });

  it('judges conversion only on a full sample of 100 decided verifications', () => {
    expect(conversionTooLow({ decided: 99, approved: 0 }, 0.1)).toBe(false);
    expect(conversionTooLow({ decided: 100, approved: 9 }, 0.1)).toBe(true);
    expect(conversionTooLow({ decided: 100, approved: 10 }, 0.1)).toBe(false);
  });

  it('never blocks a country when the least conversion is 0', () => {
    expect(conversionTooLow({ decided: 100, approved: 0 }, 0)).toBe(false);
  });
});
