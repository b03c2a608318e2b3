import { describe, expect, it } from 'vitest';
import { utcDay } from './daily-limit.js';

describe('utcDay', () => {
  it('is the UTC date of the moment, across midnight and back', () => {
    const moments = [
      '2026-11-23T23:59:59.999Z',
      '2026-11-24T00:00:00.000Z',
      '2026-11-23T12:00:00.000Z',
      '1969-12-31T23:59:59.999Z',
      '1970-01-01T00:00:00.000Z',
      '2026-11-24T00:00:00.001Z',
    ];
    for (const m of moments) expect(utcDay(new Date(m))).toBe(m.slice(0, 10));
  });

  it('refuses an invalid date as before', () => {
    expect(() => utcDay(new Date('nope'))).toThrow(RangeError);
  });
});
