import { Decimal } from 'decimal.js';

/** Money is exact: decimal strings with 6 places, as stored in DECIMAL(20,6) columns. */
export const MONEY_SCALE = 6;

export function money(value: Decimal.Value): string {
  return new Decimal(value).toFixed(MONEY_SCALE);
}

export function priceOf(costPerUnit: string, units: number): string {
  return new Decimal(costPerUnit).times(units).toFixed(MONEY_SCALE);
}

/** A cost back to its price per unit. */
export function perUnit(cost: string, units: number): string {
  return new Decimal(cost).dividedBy(units).toFixed(MONEY_SCALE);
}

export function isPositive(value: string): boolean {
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

export function sum(values: string[]): string {
  return values.reduce((acc, v) => acc.plus(v), new Decimal(0)).toFixed(MONEY_SCALE);
}

/** A valid, positive amount with at most 6 decimal places, or null. */
export function parseAmount(text: string): string | null {
  if (!/^\d{1,14}(\.\d{1,6})?$/.test(text)) return null;
  return money(text);
}
