import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('retention settings', () => {
  it('keeps 90 days, archives nowhere and prunes on no schedule unless told', () => {
    const r = loadConfig({}).retention;
    expect(r).toEqual({
      messageDays: 90,
      archiveDir: undefined,
      scheduleMs: undefined,
      batch: 500,
      pauseMs: 20,
      pauseFactor: 48,
      quietPauseFactor: 1,
      quietWrites: 100,
      nice: 19,
      partitionDaysAhead: 7,
      partitionSpanDays: 1,
    });
    expect(loadConfig({ RETENTION_PAUSE_FACTOR: '0' }).retention.pauseFactor).toBe(0);
    expect(() => loadConfig({ RETENTION_PAUSE_FACTOR: '1001' })).toThrow(ConfigError);
    expect(loadConfig({ RETENTION_QUIET_PAUSE_FACTOR: '4' }).retention.quietPauseFactor).toBe(4);
    expect(() => loadConfig({ RETENTION_QUIET_PAUSE_FACTOR: '-1' })).toThrow(/RETENTION_QUIET_PAUSE_FACTOR/);
    expect(loadConfig({ RETENTION_QUIET_WRITES: '0' }).retention.quietWrites).toBe(0);
    expect(() => loadConfig({ RETENTION_QUIET_WRITES: 'many' })).toThrow(/RETENTION_QUIET_WRITES/);
    expect(loadConfig({ RETENTION_NICE: '0' }).retention.nice).toBe(0);
    expect(() => loadConfig({ RETENTION_NICE: '20' })).toThrow(/RETENTION_NICE/);
    expect(loadConfig({ RETENTION_SCHEDULE: 'off' }).retention.scheduleMs).toBeUndefined();
  });

  it('reads RETENTION_SCHEDULE as a duration of at least a second', () => {
    expect(loadConfig({ RETENTION_SCHEDULE: '24h' }).retention.scheduleMs).toBe(86_400_000);
    expect(loadConfig({ RETENTION_SCHEDULE: '1m' }).retention.scheduleMs).toBe(60_000);
    expect(loadConfig({ RETENTION_SCHEDULE: '2s' }).retention.scheduleMs).toBe(2000);
    for (const bad of ['500ms', 'daily', '24']) {
      expect(() => loadConfig({ RETENTION_SCHEDULE: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ RETENTION_SCHEDULE: bad }), bad).toThrow(/RETENTION_SCHEDULE/);
    }
  });

  it('refuses a retention period under a day, naming the variable', () => {
    expect(() => loadConfig({ MESSAGE_RETENTION_DAYS: '0' })).toThrow(/MESSAGE_RETENTION_DAYS/);
    expect(loadConfig({ MESSAGE_RETENTION_DAYS: '30' }).retention.messageDays).toBe(30);
  });
});
