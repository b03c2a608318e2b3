import { isISO8601 } from 'class-validator';
import { AppException } from '../../platform/errors/app.exception.js';
import type { ErrorDetail } from '../../platform/errors/error-codes.js';

/** A send_at closer than this (or in the past) means "now". */
export const SEND_NOW_WITHIN_MS = 5000;
/** The furthest a send may be scheduled. */
export const MAX_SCHEDULE_DAYS = 35;
export const MIN_VALIDITY_SECONDS = 60;
export const MAX_VALIDITY_SECONDS = 604_800;

/** ISO 8601 date and time with a zone: `Z` or an offset. A local time would mean a different instant to every reader. */
const WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

export interface ScheduleInput {
  sendAt?: string | null;
  /** A number from JSON, digits from XML. */
  validityPeriod?: number | string | null;
  /** A JSON send's own send window, as given (checked by the send pipeline). */
  sendWindow?: unknown;
}

export interface Schedule {
  /** When the messages are released; null: at once. */
  sendAt: Date | null;
  validityPeriod: number;
  /** Hand-over must happen before this: validity counted from the later of send_at and now. */
  validUntil: Date;
}

/** The send_at rules: a zone is required; past or under 5 s ahead is now (null); over 35 days ahead is refused. */
export function parseSendAt(raw: unknown, now: Date, problems: ErrorDetail[]): Date | null {
  if (raw === undefined || raw === null) return null;
  if (
    typeof raw !== 'string' ||
    !WITH_ZONE.test(raw) ||
    !isISO8601(raw, { strict: true, strictSeparator: true })
  ) {
    problems.push({
      field: 'send_at',
      message: 'send_at must be an ISO 8601 date and time with Z or an offset, e.g. 2026-12-01T09:00:00Z',
    });
    return null;
  }
  const at = new Date(raw);
  const ahead = at.getTime() - now.getTime();
  if (ahead > MAX_SCHEDULE_DAYS * 86_400_000) {
    problems.push({ field: 'send_at', message: `send_at must be at most ${MAX_SCHEDULE_DAYS} days ahead` });
    return null;
  }
  return ahead < SEND_NOW_WITHIN_MS ? null : at;
}

export function parseValidity(raw: unknown, fallback: number, problems: ErrorDetail[]): number {
  if (raw === undefined || raw === null) return fallback;
  const value = typeof raw === 'string' && /^\d{1,7}$/.test(raw.trim()) ? Number(raw.trim()) : raw;
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < MIN_VALIDITY_SECONDS ||
    value > MAX_VALIDITY_SECONDS
  ) {
    problems.push({
      field: 'validity_period',
      message: `validity_period must be a whole number of seconds from ${MIN_VALIDITY_SECONDS} to ${MAX_VALIDITY_SECONDS}`,
    });
    return fallback;
  }
  return value;
}

export function validUntilOf(sendAt: Date | null, now: Date, validityPeriod: number): Date {
  const from = sendAt && sendAt > now ? sendAt : now;
  return new Date(from.getTime() + validityPeriod * 1000);
}

/** Throws VALIDATION_ERROR naming each bad field. */
export function resolveSchedule(input: ScheduleInput, now: Date, defaultValidity: number): Schedule {
  const problems: ErrorDetail[] = [];
  const sendAt = parseSendAt(input.sendAt, now, problems);
  const validityPeriod = parseValidity(input.validityPeriod, defaultValidity, problems);
  if (problems.length) throw AppException.validation(problems);
  return { sendAt, validityPeriod, validUntil: validUntilOf(sendAt, now, validityPeriod) };
}

/** The two fields as every channel's body names them. */
export function scheduleInput(body: {
  send_at?: string | null;
  validity_period?: number | string | null;
  send_window?: unknown;
}): ScheduleInput {
  return {
    sendAt: body.send_at ?? null,
    validityPeriod: body.validity_period ?? null,
    sendWindow: body.send_window ?? null,
  };
}
