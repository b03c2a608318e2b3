import { describe, expect, it } from 'vitest';
import { ConfigurationDispatchError, dispatchBackoff } from './retry-policy.js';

describe('dispatchBackoff', () => {
  it("follows Bull's exponential curve for passing failures: 2 s, 6 s, 14 s …, about 8 minutes over 7 waits", () => {
    const waits = [1, 2, 3, 4, 5, 6, 7].map((n) => dispatchBackoff(n, new Error('SMTP_421')));
    expect(waits.slice(0, 3)).toEqual([2000, 6000, 14_000]);
    expect(waits.reduce((a, b) => a + b, 0)).toBe(494_000);
  });

  it('waits 1, 2, 4, 8, then 15 minutes after a configuration failure: about an hour to fix it', () => {
    const waits = [1, 2, 3, 4, 5, 6, 7].map((n) =>
      dispatchBackoff(n, new ConfigurationDispatchError('SMTP_TLS_CERTIFICATE')),
    );
    expect(waits.map((w) => w / 60_000)).toEqual([1, 2, 4, 8, 15, 15, 15]);
  });
});
