import mysql2 from 'mysql2';
import { describe, expect, it } from 'vitest';
import { sqlDateTime } from './data-sources.js';

describe('sqlDateTime', () => {
  it('writes a time as the driver does under timezone Z, to the millisecond', () => {
    for (const d of [
      new Date('2026-11-23T05:04:03.007Z'),
      new Date('2026-01-01T00:00:00.000Z'),
      new Date('2024-02-29T23:59:59.999Z'),
      new Date(Date.UTC(1999, 11, 31, 9, 8, 7, 60)),
    ]) {
      expect(mysql2.format('?', [sqlDateTime(d)], false, 'Z')).toBe(mysql2.format('?', [d], false, 'Z'));
    }
    expect(sqlDateTime(null)).toBeNull();
  });

  it('answers each time its own text when the same and different times alternate, and a changed Date its new time', () => {
    const a = new Date('2026-11-23T05:04:03.007Z');
    const b = new Date('2026-11-23T05:04:03.008Z');
    const texts = [a, a, b, a, b, b].map((d) => sqlDateTime(d));
    expect(texts).toEqual([
      '2026-11-23 05:04:03.007',
      '2026-11-23 05:04:03.007',
      '2026-11-23 05:04:03.008',
      '2026-11-23 05:04:03.007',
      '2026-11-23 05:04:03.008',
      '2026-11-23 05:04:03.008',
    ]);
    a.setUTCFullYear(2030);
    expect(sqlDateTime(a)).toBe('2030-11-23 05:04:03.007');
    expect(() => sqlDateTime(new Date(NaN))).toThrow(RangeError);
  });
});
