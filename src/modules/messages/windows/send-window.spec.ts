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

  it('never opens in the past on a spring-forward day, for a window inside the jump asked for after it', () => {
    // London, Sunday 28 March 2027: 01:00 GMT jumps to 02:00 BST. 01:30-02:00 does not exist that
    // day; asked at 02:10 BST (01:10 UTC), the jump's end (01:00 UTC) has passed: Monday 01:30 BST.
    const inGap: SendWindow = { from: '01:30', to: '02:00', days: null };
    expect(opening(inGap, 'Europe/London', '2027-03-28T01:10:00.000Z')).toBe('2027-03-29T00:30:00.000Z');
    // Asked before the jump, it opens at the jump's end.
    expect(opening(inGap, 'Europe/London', '2027-03-28T00:45:00.000Z')).toBe('2027-03-28T01:00:00.000Z');
    // New York, Sunday 14 March 2027: 02:00 EST jumps to 03:00 EDT; asked at 03:10 EDT (07:10 UTC).
    const nyGap: SendWindow = { from: '02:15', to: '02:45', days: null };
    expect(opening(nyGap, 'America/New_York', '2027-03-14T07:10:00.000Z')).toBe('2027-03-15T06:15:00.000Z');
  });

  it('answers an instant at or after the one asked, every 10 minutes from 3 h before to 3 h after both zones’ spring-forward jumps', () => {
    const cases: Array<[string, string]> = [
      ['Europe/London', '2027-03-27T22:00:00.000Z'],
      ['America/New_York', '2027-03-14T04:00:00.000Z'],
    ];
    const windows: SendWindow[] = [];
    for (const from of ['00:45', '01:00', '01:30', '02:00', '02:15', '02:30', '03:00'])
      for (const to of ['01:15', '02:00', '02:45', '03:00', '04:00', '00:30'])
        if (from !== to) windows.push({ from, to, days: null });
    for (const [zone, startIso] of cases)
      for (let t = Date.parse(startIso), end = t + 6 * 3600_000; t < end; t += 10 * 60_000)
        for (const w of windows) {
          const open = windowOpening(w, zone, new Date(t)).getTime();
          if (open < t) throw new Error(`${zone} ${w.from}-${w.to} at ${new Date(t).toISOString()}: ${open}`);
        }
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
