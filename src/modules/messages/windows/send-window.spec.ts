import { describe, expect, it } from 'vitest';
import type { ErrorDetail } from '../../../platform/errors/error-codes.js';
import { isTimeZone, parseSendWindow, windowOpening, type SendWindow } from './send-window.js';

const at = (iso: string) => new Date(iso);
const opening = (w: SendWindow, zone: string, iso: string) => windowOpening(w, zone, at(iso)).toISOString();

describe('windowOpening', () => {
  const day: SendWindow = { from: '08:00', to: '20:00', days: null };

  it('is the instant itself while the window is open in the zone', () => {
    // 10:00 in Lusaka (UTC+2).
    expect(opening(day, 'Africa/Lusaka', '2026-06-10T08:00:00.000Z')).toBe('2026-06-10T08:00:00.000Z');
  });

  it('is the same day’s opening before it, and the next day’s after the close', () => {
    // 05:00 Lusaka: opens at 08:00 local = 06:00 UTC.
    expect(opening(day, 'Africa/Lusaka', '2026-06-10T03:00:00.000Z')).toBe('2026-06-10T06:00:00.000Z');
    // 20:00 Lusaka exactly: closed (to is exclusive), opens tomorrow.
    expect(opening(day, 'Africa/Lusaka', '2026-06-10T18:00:00.000Z')).toBe('2026-06-11T06:00:00.000Z');
  });

  it('follows a daylight-saving change: the opening after spring-forward is an hour earlier in UTC', () => {
    // New York, Saturday 7 March 2026 21:00 EST (02:00 UTC on the 8th); clocks go forward at 02:00 on the 8th.
    expect(opening(day, 'America/New_York', '2026-03-08T02:00:00.000Z')).toBe('2026-03-08T12:00:00.000Z');
    // The evening before, 08:00 EST was 13:00 UTC.
    expect(opening(day, 'America/New_York', '2026-03-07T05:00:00.000Z')).toBe('2026-03-07T13:00:00.000Z');
    // Autumn: 1 November 2026 falls back; 08:00 EST is 13:00 UTC again.
    expect(opening(day, 'America/New_York', '2026-11-01T03:00:00.000Z')).toBe('2026-11-01T13:00:00.000Z');
  });

  it('opens at the end of the jump when its local time does not exist that day', () => {
    // 02:30 does not exist in New York on 8 March 2026: the window opens when the clock reaches 03:00 EDT.
    const w: SendWindow = { from: '02:30', to: '06:00', days: null };
    expect(opening(w, 'America/New_York', '2026-03-08T05:00:00.000Z')).toBe('2026-03-08T07:00:00.000Z');
  });

  it('spans midnight when from is later than to', () => {
    const night: SendWindow = { from: '22:00', to: '06:00', days: null };
    // 23:00 UTC and 03:00 UTC are inside; 12:00 waits for 22:00.
    expect(opening(night, 'UTC', '2026-06-10T23:00:00.000Z')).toBe('2026-06-10T23:00:00.000Z');
    expect(opening(night, 'UTC', '2026-06-11T03:00:00.000Z')).toBe('2026-06-11T03:00:00.000Z');
    expect(opening(night, 'UTC', '2026-06-11T06:00:00.000Z')).toBe('2026-06-11T22:00:00.000Z');
  });

  it('keeps to its days; the hours after midnight belong to the day the window opened', () => {
    const weekdays: SendWindow = { from: '09:00', to: '17:00', days: ['mon', 'tue', 'wed', 'thu', 'fri'] };
    // Saturday 13 June 2026 10:00 UTC: waits for Monday 15 June 09:00.
    expect(opening(weekdays, 'UTC', '2026-06-13T10:00:00.000Z')).toBe('2026-06-15T09:00:00.000Z');
    // Friday 17:00: closed, Monday again.
    expect(opening(weekdays, 'UTC', '2026-06-12T17:00:00.000Z')).toBe('2026-06-15T09:00:00.000Z');
    const fridayNight: SendWindow = { from: '22:00', to: '02:00', days: ['fri'] };
    // Saturday 01:00 is still Friday's window; Saturday 23:00 is not.
    expect(opening(fridayNight, 'UTC', '2026-06-13T01:00:00.000Z')).toBe('2026-06-13T01:00:00.000Z');
    expect(opening(fridayNight, 'UTC', '2026-06-13T23:00:00.000Z')).toBe('2026-06-19T22:00:00.000Z');
  });
});

describe('parseSendWindow', () => {
  const parse = (raw: unknown) => {
    const problems: ErrorDetail[] = [];
    return { window: parseSendWindow(raw, 'send_window', problems), problems };
  };

  it('reads times and days, days in week order and every day as none', () => {
    expect(parse({ from: '08:00', to: '20:00', days: ['FRI', 'mon', 'fri'] }).window).toEqual({
      from: '08:00',
      to: '20:00',
      days: ['mon', 'fri'],
    });
    expect(
      parse({ from: '08:00', to: '20:00', days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] }).window,
    ).toEqual({ from: '08:00', to: '20:00', days: null });
  });

  it('names each bad field', () => {
    const { window, problems } = parse({ from: '8:00', to: '24:00', days: ['monday'], tz: 'UTC' });
    expect(window).toBeNull();
    expect(problems.map((p) => p.field).sort()).toEqual([
      'send_window.days',
      'send_window.from',
      'send_window.to',
      'send_window.tz',
    ]);
    expect(parse({ from: '08:00', to: '08:00' }).problems).toEqual([
      { field: 'send_window.to', message: 'to must differ from from' },
    ]);
    expect(parse('08:00-20:00').problems[0]!.field).toBe('send_window');
    expect(parse({ from: '08:00', to: '20:00', days: [] }).problems[0]!.field).toBe('send_window.days');
  });

  it('knows IANA zones', () => {
    expect(isTimeZone('Africa/Lusaka')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });
});
