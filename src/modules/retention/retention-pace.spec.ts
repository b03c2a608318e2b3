import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/config.js';
import { pauseAfterBatch } from './retention.service.js';

describe('the prune pace', () => {
  it('pauses after a batch RETENTION_PAUSE_FACTOR times as long as the batch took, RETENTION_PAUSE_MS at least', () => {
    const { pauseMs, pauseFactor } = loadConfig({}).retention;
    // A batch slowed by sends (30 ms instead of 5) lengthens the pause in proportion.
    expect(pauseAfterBatch(5, pauseMs, pauseFactor)).toBe(120);
    expect(pauseAfterBatch(30, pauseMs, pauseFactor)).toBe(720);
    // A quick batch still leaves the shortest pause (20 ms, more than 24 × 0.5 ms).
    expect(pauseAfterBatch(0.5, pauseMs, pauseFactor)).toBe(20);
    // The prune takes at most 1 / (1 + factor) of the time: a twenty-fifth at the default.
    const batch = 40;
    expect(batch / (batch + pauseAfterBatch(batch, pauseMs, pauseFactor))).toBeCloseTo(1 / 25);
  });

  it('with a factor of 0 pauses RETENTION_PAUSE_MS alone', () => {
    const { pauseMs, pauseFactor } = loadConfig({
      RETENTION_PAUSE_FACTOR: '0',
      RETENTION_PAUSE_MS: '50',
    }).retention;
    expect(pauseAfterBatch(400, pauseMs, pauseFactor)).toBe(50);
  });
});
