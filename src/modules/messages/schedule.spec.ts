import { describe, expect, it } from 'vitest';
import { AppException } from '../../platform/errors/app.exception.js';
import { resolveSchedule } from './schedule.js';

const now = new Date('2026-11-22T10:00:00.000Z');
const fields = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as AppException).details.map((d) => d.field);
  }
  return [];
};

describe('schedule rules', () => {
  it('refuses a send_at without Z or an offset', () => {
    expect(fields(() => resolveSchedule({ sendAt: '2026-11-23T10:00:00' }, now, 172800))).toEqual([
      'send_at',
    ]);
  });

  it('refuses an impossible date even with a zone', () => {
    expect(fields(() => resolveSchedule({ sendAt: '2026-02-30T10:00:00Z' }, now, 172800))).toEqual([
      'send_at',
    ]);
  });

  it('takes an offset as the instant it names', () => {
    const s = resolveSchedule({ sendAt: '2026-11-22T13:00:00+02:00' }, now, 172800);
    expect(s.sendAt?.toISOString()).toBe('2026-11-22T11:00:00.000Z');
  });

  it('sends now when send_at is in the past or under 5 s ahead', () => {
    expect(resolveSchedule({ sendAt: '2026-11-22T09:00:00Z' }, now, 172800).sendAt).toBeNull();
    expect(resolveSchedule({ sendAt: '2026-11-22T10:00:04.999Z' }, now, 172800).sendAt).toBeNull();
    expect(resolveSchedule({ sendAt: '2026-11-22T10:00:05Z' }, now, 172800).sendAt).not.toBeNull();
  });

  it('refuses more than 35 days ahead', () => {
    expect(fields(() => resolveSchedule({ sendAt: '2026-12-27T10:00:01Z' }, now, 172800))).toEqual([
      'send_at',
    ]);
    expect(fields(() => resolveSchedule({ sendAt: '2026-12-27T10:00:00Z' }, now, 172800))).toEqual([]);
  });

  it('takes validity_period of 60 to 604800 whole seconds only', () => {
    for (const bad of [59, 604801, 60.5, '1e3', true])
      expect(fields(() => resolveSchedule({ validityPeriod: bad as number }, now, 172800))).toEqual([
        'validity_period',
      ]);
    expect(resolveSchedule({ validityPeriod: '600' }, now, 172800).validityPeriod).toBe(600);
  });

  it('counts validity from the later of send_at and acceptance', () => {
    const later = resolveSchedule({ sendAt: '2026-11-23T10:00:00Z', validityPeriod: 60 }, now, 172800);
    expect(later.validUntil.toISOString()).toBe('2026-11-23T10:01:00.000Z');
    const immediate = resolveSchedule({}, now, 172800);
    expect(immediate.validUntil.toISOString()).toBe('2026-11-24T10:00:00.000Z');
  });
});
