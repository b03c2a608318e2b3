import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';
import { lockSettings } from '../modules/delivery/retry-policy.js';

describe('delivery settings', () => {
  it('reads RECEIPT_WAIT as a duration, 72 h by default', () => {
    expect(loadConfig({ RECEIPT_WAIT: undefined }).receiptWaitMs).toBe(72 * 3_600_000);
    expect(loadConfig({ RECEIPT_WAIT: '30m' }).receiptWaitMs).toBe(1_800_000);
    expect(loadConfig({ RECEIPT_WAIT: '2s' }).receiptWaitMs).toBe(2000);
    expect(loadConfig({ RECEIPT_WAIT: '3d' }).receiptWaitMs).toBe(3 * 86_400_000);
  });

  it('refuses a RECEIPT_WAIT that is not a duration, or under a second, naming the variable', () => {
    for (const bad of ['72', '1.5h', 'soon', '500ms']) {
      expect(() => loadConfig({ RECEIPT_WAIT: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ RECEIPT_WAIT: bad }), bad).toThrow(/RECEIPT_WAIT/);
    }
  });

  it('has defaults for the sweep and the callback gate, and validates them', () => {
    const c = loadConfig({
      SWEEP_STRANDED_AFTER_MS: undefined,
      CALLBACK_TARGET_CONCURRENCY: undefined,
      CALLBACK_CIRCUIT_OPEN_MS: undefined,
    });
    expect([c.sweepStrandedAfterMs, c.callbackTargetConcurrency, c.callbackCircuitOpenMs]).toEqual([
      60_000, 4, 30_000,
    ]);
    expect(() => loadConfig({ SWEEP_STRANDED_AFTER_MS: '10' })).toThrow(/SWEEP_STRANDED_AFTER_MS/);
    expect(() => loadConfig({ CALLBACK_TARGET_CONCURRENCY: '0' })).toThrow(/CALLBACK_TARGET_CONCURRENCY/);
  });

  it('gives a dead worker’s job back within QUEUE_LOCK_MS: the lock’s life plus two stalled checks', () => {
    for (const queueLockMs of [1500, 10_000, 30_000]) {
      const s = lockSettings({ queueLockMs });
      expect(s.lockDuration + 2 * s.stalledInterval).toBeLessThanOrEqual(queueLockMs);
      expect(s.lockRenewTime).toBeLessThan(s.lockDuration / 2);
    }
  });
});
