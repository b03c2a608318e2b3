import { describe, expect, it } from 'vitest';
import { haEvents } from '../platform/ha/ha-events.js';
import { againOnWriteConflict } from './conflict-retry.js';

const mysqlError = (errno: number) => Object.assign(new Error(`errno ${errno}`), { errno });

describe('againOnWriteConflict', () => {
  it('runs a statement again after a deadlock, counting each retry', async () => {
    const before = haEvents.transactionRetries;
    const errors = [mysqlError(1213), mysqlError(1213)];
    let calls = 0;
    const result = await againOnWriteConflict(async () => {
      calls++;
      const err = errors.shift();
      if (err) throw err;
      return 'kept';
    }, 5);
    expect(result).toBe('kept');
    expect(calls).toBe(3);
    expect(haEvents.transactionRetries - before).toBe(2);
  });

  it('passes a lock wait timeout on at once, and a deadlock after the last try', async () => {
    let calls = 0;
    const fail = (errno: number) => async () => {
      calls++;
      throw mysqlError(errno);
    };
    await expect(againOnWriteConflict(fail(1205), 5)).rejects.toThrow('errno 1205');
    expect(calls).toBe(1);
    calls = 0;
    await expect(againOnWriteConflict(fail(1213), 2)).rejects.toThrow('errno 1213');
    expect(calls).toBe(2);
  });
});
