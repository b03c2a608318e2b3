import { parseAmount } from '../../platform/money/money.js';

/**
 * A daily spend limit as stored: zero or more, at most 6 decimal places (zero stops every
 * charged send until the limit is raised or cleared). Throws `Err` with a sentence otherwise.
 */
export function checkDailyLimit(value: string, Err: new (message: string) => Error): string {
  const amount = parseAmount(String(value).trim());
  if (amount === null)
    throw new Err(
      'daily limit must be a decimal of zero or more with at most 6 decimal places, such as 50.00',
    );
  return amount;
}

/** The UTC day a charge counts toward, as the DATE column stores it. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}
