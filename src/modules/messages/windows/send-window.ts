import { DateTime } from 'luxon';
import type { ErrorDetail } from '../../../platform/errors/error-codes.js';

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/**
 * When messages may go out, in the recipient's local time: from `from` (inclusive) to `to`
 * (exclusive), on `days` (null: every day). A window whose `from` is later than its `to` spans
 * midnight; its hours after midnight belong to the day it opened on.
 */
export interface SendWindow {
  from: string;
  to: string;
  days: Weekday[] | null;
}

const HH_MM = /^([01]\d|2[0-3]):([0-5]\d)$/;

function minutesOf(hhmm: string): number {
  const m = HH_MM.exec(hhmm)!;
  return Number(m[1]) * 60 + Number(m[2]);
}

/**
 * Reads a window as a request or the CLI gives it: `{from: "HH:MM", to: "HH:MM", days?: ["mon", …]}`.
 * Problems are added under `field` (e.g. `send_window.from`); null when there were any.
 */
export function parseSendWindow(raw: unknown, field: string, problems: ErrorDetail[]): SendWindow | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    problems.push({ field, message: `${field} must be an object {from, to, days?}` });
    return null;
  }
  const before = problems.length;
  const o = raw as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (k !== 'from' && k !== 'to' && k !== 'days')
      problems.push({ field: `${field}.${k}`, message: 'unknown field' });
  for (const k of ['from', 'to'] as const)
    if (typeof o[k] !== 'string' || !HH_MM.test(o[k]))
      problems.push({ field: `${field}.${k}`, message: `${k} must be a time HH:MM from 00:00 to 23:59` });
  if (problems.length === before && o.from === o.to)
    problems.push({ field: `${field}.to`, message: 'to must differ from from' });
  const days = parseDays(o.days, `${field}.days`, problems);
  if (problems.length > before) return null;
  return { from: o.from as string, to: o.to as string, days };
}

function parseDays(raw: unknown, field: string, problems: ErrorDetail[]): Weekday[] | null {
  if (raw === undefined || raw === null) return null;
  const list = Array.isArray(raw) ? raw : null;
  if (!list || list.length === 0 || list.some((d) => typeof d !== 'string' || !isWeekday(d.toLowerCase()))) {
    problems.push({ field, message: `days must be a non-empty list of ${WEEKDAYS.join(', ')}` });
    return null;
  }
  const set = new Set(list.map((d) => (d as string).toLowerCase()));
  // In week order, each once: the stored and compared form.
  return set.size === WEEKDAYS.length ? null : WEEKDAYS.filter((d) => set.has(d));
}

function isWeekday(d: string): d is Weekday {
  return (WEEKDAYS as readonly string[]).includes(d);
}

/** An IANA zone name the runtime knows (Intl), as `--tz` takes it. */
export function isTimeZone(zone: string): boolean {
  return DateTime.local().setZone(zone).isValid;
}

/**
 * The first instant at or after `at` when the window is open in `zone`: `at` itself while it is
 * open, else the next opening. Local times come from the zone's rules (luxon over Intl), so a
 * daylight-saving change moves the opening's UTC instant; an opening that falls in a change's
 * gap (the clock jumps over it) is the first instant after the jump.
 */
export function windowOpening(w: SendWindow, zone: string, at: Date): Date {
  const local = DateTime.fromJSDate(at, { zone });
  const from = minutesOf(w.from);
  const to = minutesOf(w.to);
  const allowed = (weekday: number) => !w.days || w.days.includes(WEEKDAYS[weekday - 1]!);
  const now = local.hour * 60 + local.minute;
  if (from < to) {
    if (now >= from && now < to && allowed(local.weekday)) return at;
  } else {
    if (now >= from && allowed(local.weekday)) return at;
    if (now < to && allowed(local.minus({ days: 1 }).weekday)) return at;
  }
  for (let k = 0; k <= 7; k++) {
    const day = local.startOf('day').plus({ days: k });
    if (!allowed(day.weekday)) continue;
    const asked = day.set({ hour: Math.floor(from / 60), minute: from % 60 });
    const open = asked.hour * 60 + asked.minute === from ? asked : endOfGap(asked);
    // Compared after the gap is taken into account: luxon moves a missing time forward past the
    // jump, so `asked` can lie ahead of `at` while the jump's end, the real opening, lies behind
    // it (a window inside the gap, asked for after the jump). Then that day's opening has passed.
    if (open <= local) continue;
    return open.toJSDate();
  }
  throw new Error('a window with days opens within a week');
}

/** The local time asked for did not exist (the clock jumped over it): the instant the jump ended. */
function endOfGap(shifted: DateTime): DateTime {
  // luxon moved the time forward by the gap; the jump happened on a whole minute before it.
  let t = shifted;
  for (let i = 0; i < 24 * 60; i++) {
    const earlier = t.minus({ minutes: 1 });
    if (earlier.offset === shifted.offset) t = earlier;
    else break;
  }
  return t;
}
