import { AppException } from '../../platform/errors/app.exception.js';
import type { ErrorDetail } from '../../platform/errors/error-codes.js';

/**
 * Picks one value out of two accepted names for the same field (e.g. from / sender_id).
 * Both present and different is an error rather than a silent choice.
 */
export function pickAlias<B extends object, P extends keyof B & string, L extends keyof B & string>(
  body: B,
  primary: P,
  legacy: L,
  problems: ErrorDetail[],
): NonNullable<B[P] | B[L]> | undefined {
  const a = body[primary] as B[P] | B[L] | undefined;
  const b = body[legacy];
  if (a !== undefined && b !== undefined && JSON.stringify(a) !== JSON.stringify(b)) {
    problems.push({ field: primary, message: `${primary} and ${legacy} name the same field but differ` });
  }
  const value = a ?? b;
  if (
    value === undefined ||
    (typeof value === 'string' && value.trim() === '') ||
    (Array.isArray(value) && value.length === 0)
  ) {
    problems.push({ field: primary, message: `${primary} (or ${legacy}) is required` });
    return undefined;
  }
  return value as NonNullable<B[P] | B[L]>;
}

export function throwIfProblems(problems: ErrorDetail[]): void {
  if (problems.length) throw AppException.validation(problems);
}
