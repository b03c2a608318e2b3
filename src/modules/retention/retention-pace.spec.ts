import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/config.js';
import { paceFactor, pauseAfterBatch } from './retention.service.js';

describe('the prune pace', () => {
  it('pauses after a batch a factor times as long as the batch took, RETENTION_PAUSE_MS at least', () => {
    const { pauseMs } = loadConfig({}).retention;
    // A batch slowed by sends (30 ms instead of 5) lengthens the pause in proportion.
    expect(pauseAfterBatch(5, pauseMs, 24)).toBe(120);
    expect(pauseAfterBatch(30, pauseMs, 24)).toBe(720);
    // A quick batch still leaves the shortest pause (20 ms, more than 24 × 0.5 ms).
    expect(pauseAfterBatch(0.5, pauseMs, 24)).toBe(20);
    // The prune takes at most 1 / (1 + factor) of the time.
    const batch = 40;
    expect(batch / (batch + pauseAfterBatch(batch, pauseMs, 24))).toBeCloseTo(1 / 25);
  });

  it('with a factor of 0 pauses RETENTION_PAUSE_MS alone', () => {
    const { pauseMs } = loadConfig({ RETENTION_PAUSE_MS: '50' }).retention;
    expect(pauseAfterBatch(400, pauseMs, 0)).toBe(50);
  });

  it('takes RETENTION_PAUSE_FACTOR while others write RETENTION_QUIET_WRITES rows a second or more, the quiet factor below', () => {
    const pace = loadConfig({}).retention;
    // At the defaults: a forty-ninth of the time beside sends, half of it on a quiet database.
    expect(paceFactor(5_000, pace)).toBe(48);
    expect(paceFactor(100, pace)).toBe(48);
    expect(paceFactor(99.9, pace)).toBe(1);
    expect(paceFactor(0, pace)).toBe(1);
    const never = loadConfig({ RETENTION_QUIET_WRITES: '0', RETENTION_PAUSE_FACTOR: '30' }).retention;
    expect(paceFactor(0, never)).toBe(30);
  });
});
