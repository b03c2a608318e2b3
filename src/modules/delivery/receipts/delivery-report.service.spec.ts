import { describe, expect, it } from 'vitest';
import { retryLocks } from './delivery-report.service.js';

const mysqlError = (errno: number) => Object.assign(new Error(`errno ${errno}`), { errno });

describe('retryLocks', () => {
  it('tries a batch again after a deadlock or a lock wait timeout', async () => {
    const errors = [mysqlError(1213), mysqlError(1205)];
    let calls = 0;
    const result = await retryLocks(async () => {
      calls++;
      const err = errors.shift();
      if (err) throw err;
      return 'stored';
    });
    expect(result).toBe('stored');
    expect(calls).toBe(3);
  });

  it('passes any other failure on at once, and a deadlock that persists after the last try', async () => {
    let calls = 0;
    await expect(
      retryLocks(async () => {
        calls++;
        throw mysqlError(2013);
      }),
    ).rejects.toThrow('errno 2013');
    expect(calls).toBe(1);

    calls = 0;
    await expect(
      retryLocks(async () => {
        calls++;
        throw mysqlError(1213);
      }, 3),
    ).rejects.toThrow('errno 1213');
    expect(calls).toBe(3);
  });
});
