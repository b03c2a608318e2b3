import { Decimal } from 'decimal.js';

/** Money is exact: decimal strings with 6 places, as stored in DECIMAL(20,6) columns. */
export const MONEY_SCALE = 6;

export function money(value: Decimal.Value): string {
  return new Decimal(value).toFixed(MONEY_SCALE);
}

/** Prices already worked out, by price per unit and units: a send repeats the same few. */
const prices = new Map<string, string>();
const MAX_PRICES = 10_000;

export function priceOf(costPerUnit: string, units: number): string {
  const key = `${costPerUnit}|${units}`;
  let price = prices.get(key);
  if (price === undefined) {
    price = new Decimal(costPerUnit).times(units).toFixed(MONEY_SCALE);
    if (prices.size >= MAX_PRICES) prices.clear();
    prices.set(key, price);
  }
  return price;
}

/** A cost back to its price per unit. */
export function perUnit(cost: string, units: number): string {
  return new Decimal(cost).dividedBy(units).toFixed(MONEY_SCALE);
}

/** Digits with an optional fraction: what money() and the DECIMAL columns give. */
const PLAIN_DECIMAL = /^\d+(?:\.\d+)?$/;
const NONZERO_DIGIT = /[1-9]/;

export function isPositive(value: string): boolean {
  // Plain decimal text is positive exactly when a digit is not 0; anything else (a sign, an exponent) is parsed.
  if (PLAIN_DECIMAL.test(value)) return NONZERO_DIGIT.test(value);
  return new Decimal(value).greaterThan(0);
}

/** The answer's number form: exact in the database, shortest faithful decimal in JSON. */
export function toNumber(value: string): number {
  return new Decimal(value).toNumber();
}

export function creditsOf(balance: string, costPerUnit: string): number {
  const price = new Decimal(costPerUnit);
  if (price.isZero()) return 0;
  return new Decimal(balance).dividedToIntegerBy(price).toNumber();
}

/** A money() string: no leading zeros, six places. */
const CANONICAL = /^(?:0|[1-9]\d*)\.\d{6}$/;

export function sum(values: string[]): string {
  if (values.length === 1 && CANONICAL.test(values[0]!)) return values[0]!;
  return values.reduce((acc, v) => acc.plus(v), new Decimal(0)).toFixed(MONEY_SCALE);
}

/** A valid, positive amount with at most 6 decimal places, or null. */
export function parseAmount(text: string): string | null {
  if (!/^\d{1,14}(\.\d{1,6})?$/.test(text)) return null;
  return money(text);
}
