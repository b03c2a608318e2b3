import smpp from 'smpp';
import { MAX_VALIDITY_SECONDS } from '../../messages/schedule.js';

/**
 * SMPP 3.4's time fields (section 7.1.1), as submit_sm's schedule_delivery_time and
 * validity_period carry them: empty (none), or 16 characters `YYMMDDhhmmsstnnp`.
 *
 * - Absolute (`p` is `+` or `-`): the local time of the sender, `t` tenths of a second, `nn` the
 *   quarter hours (00–48) that local time is ahead of (`+`) or behind (`-`) UTC.
 * - Relative (`p` is `R`): a period of YY years, MM months, DD days, hh:mm:ss from the moment the
 *   submit arrives (`tnn` unused, `000`).
 *
 * The `smpp` library would turn them into Dates itself: a relative time by the process's local
 * calendar, and a malformed one into an invalid Date or an exception thrown while the PDU is
 * read, which ends the session instead of answering it. So the server reads them as text
 * (keepSubmitTimesAsText) and parses them here.
 */
const FORM = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d)(\d{2})([-+R])$/;

/** The instant the field names, null when empty, undefined when it is not a valid SMPP time. */
export function parseSmppTime(raw: unknown, now: Date): Date | null | undefined {
  if (raw === undefined || raw === null || raw === '') return null;
  if (typeof raw !== 'string') return undefined;
  const m = FORM.exec(raw);
  if (!m) return undefined;
  const [yy, mo, dd, hh, mi, ss, t, nn] = m.slice(1, 9).map(Number);
  if (m[9] === 'R')
    return new Date(
      Date.UTC(
        now.getUTCFullYear() + yy,
        now.getUTCMonth() + mo,
        now.getUTCDate() + dd,
        now.getUTCHours() + hh,
        now.getUTCMinutes() + mi,
        now.getUTCSeconds() + ss,
        now.getUTCMilliseconds(),
      ),
    );
  const year = 2000 + yy;
  const daysInMonth = new Date(Date.UTC(year, mo, 0)).getUTCDate();
  if (mo < 1 || mo > 12 || dd < 1 || dd > daysInMonth || hh > 23 || mi > 59 || ss > 59 || nn > 48)
    return undefined;
  const local = Date.UTC(year, mo - 1, dd, hh, mi, ss, t * 100);
  const ahead = (m[9] === '+' ? 1 : -1) * nn * 15 * 60_000;
  return new Date(local - ahead);
}

let kept = false;

/**
 * Has the library hand over submit_sm's two time fields as the text received (it still encodes
 * them as before, for the submits our own SMSC links send).
 */
export function keepSubmitTimesAsText(): void {
  if (kept) return;
  kept = true;
  const params = smpp.commands.submit_sm!.params;
  for (const name of ['schedule_delivery_time', 'validity_period']) {
    const field = params[name]!;
    field.filter = { encode: field.filter!.encode, decode: (value: unknown) => value };
  }
}

/** What a submit_sm's time fields ask of the send, or the status refusing them. */
export type SubmitTimes =
  { ok: true; sendAt?: string; validityPeriod?: number } | { ok: false; status: number; why: string };

/**
 * schedule_delivery_time is the send's send_at (the pipeline's rules apply: past or under 5 s
 * ahead is now, over 35 days ahead is refused). validity_period is the instant the message
 * expires: as a send's validity_period it counts from the later of send_at and now, and a longer
 * one than the service keeps a message is shortened to that, as an SMSC applies its own maximum.
 */
export function submitTimes(schedule: unknown, validity: unknown, now: Date): SubmitTimes {
  const sendAt = parseSmppTime(schedule, now);
  if (sendAt === undefined)
    return {
      ok: false,
      status: smpp.errors.ESME_RINVSCHED!,
      why: 'schedule_delivery_time is not an SMPP time',
    };
  const expiry = parseSmppTime(validity, now);
  if (expiry === undefined)
    return { ok: false, status: smpp.errors.ESME_RINVEXPIRY!, why: 'validity_period is not an SMPP time' };
  const times: SubmitTimes = { ok: true, ...(sendAt ? { sendAt: sendAt.toISOString() } : {}) };
  if (!expiry) return times;
  const from = sendAt && sendAt > now ? sendAt : now;
  const seconds = Math.ceil((expiry.getTime() - from.getTime()) / 1000);
  if (seconds <= 0)
    return {
      ok: false,
      status: smpp.errors.ESME_RINVEXPIRY!,
      why: 'validity_period ends before the message could go',
    };
  return { ...times, validityPeriod: Math.min(seconds, MAX_VALIDITY_SECONDS) };
}
