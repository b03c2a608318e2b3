import { ValidateBy, type ValidationOptions } from 'class-validator';

/** A string, or a list of strings. */
export function IsStringOrStringArray(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isStringOrStringArray',
      validator: {
        validate: (v: unknown) =>
          typeof v === 'string' || (Array.isArray(v) && v.every((x) => typeof x === 'string')),
        defaultMessage: (args) => `${args?.property} must be a string or a list of strings`,
      },
    },
    options,
  );
}

/** The largest page number: nine digits keep (page - 1) * per_page a safe integer for MySQL. */
export const MAX_PAGE_NUMBER = 999_999_999;

/**
 * A query parameter that must be a whole number from `min` to `max`: a page size of 0 or 5000 is
 * refused naming the field, never quietly clamped into range.
 */
export function IsWholeNumberFrom(min: number, max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isWholeNumberFrom',
      validator: {
        validate: (v: unknown) =>
          typeof v === 'string' && /^\d{1,15}$/.test(v) && Number(v) >= min && Number(v) <= max,
        defaultMessage: (args) => `${args?.property} must be a whole number from ${min} to ${max}`,
      },
    },
    options,
  );
}

export function asList(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

/** A date (midnight UTC) or a date and time with its offset: never the server's local time. */
export const INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/**
 * An INSTANT that names a real time: `2026-02-30` and ISO 8601's other forms (`2026-W01`, an
 * ordinal date, no offset) are refused rather than read as no filter or as the server's time.
 */
export function IsInstant(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isInstant',
      validator: {
        validate: (v: unknown) => typeof v === 'string' && INSTANT.test(v) && realDate(v),
        defaultMessage: (args) =>
          `${args?.property} must be a date (2026-11-22) or a date and time with its offset (2026-11-22T08:00:00Z)`,
      },
    },
    options,
  );
}

function realDate(v: string): boolean {
  const [y, m, d] = v.slice(0, 10).split('-').map(Number);
  const daysInMonth = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth && !Number.isNaN(new Date(v).getTime());
}
