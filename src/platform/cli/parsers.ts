import ipaddr from 'ipaddr.js';
import { isPositive, parseAmount } from '../money/money.js';
import { UsageError } from './cli-errors.js';

/**
 * Option parsers for the admin CLI. Each one rejects a malformed value with a UsageError
 * (exit 2) before anything touches the database; whether a well-formed value is acceptable
 * (an unknown user, a date already past) is the service's call and exits 1.
 */

/** One of a fixed list of lower-case words (a channel name, say); case and spaces are forgiven. */
export function parseOneOf<T extends string>(value: string, allowed: readonly T[]): T {
  const v = value.trim().toLowerCase();
  if (!(allowed as readonly string[]).includes(v))
    throw new UsageError(`Expected one of ${allowed.join(', ')}.`);
  return v as T;
}

/** A top-up: positive, at most 6 decimal places. */
export function parsePositiveAmount(value: string): string {
  const amount = parseAmount(value.trim());
  if (amount === null || !isPositive(amount)) {
    throw new UsageError('Expected a positive decimal amount with at most 6 decimal places, such as 100.00.');
  }
  return amount;
}

/** A price: zero or more, at most 6 decimal places. */
export function parseCostPerUnit(value: string): string {
  const amount = parseAmount(value.trim());
  if (amount === null)
    throw new UsageError('Expected a decimal of zero or more with at most 6 decimal places, such as 0.25.');
  return amount;
}

/** A daily spend limit: zero or more, at most 6 decimal places. */
export function parseDailyLimit(value: string): string {
  const amount = parseAmount(value.trim());
  if (amount === null)
    throw new UsageError('Expected a decimal of zero or more with at most 6 decimal places, such as 50.00.');
  return amount;
}

export function parseCurrency(value: string): string {
  if (!/^[A-Za-z]{3}$/.test(value.trim()))
    throw new UsageError('Expected a three-letter ISO 4217 code such as ZMW.');
  return value.trim().toUpperCase();
}

/**
 * One address or CIDR range, written back in canonical form ("::0001" becomes "::1").
 * IPv4 must be four decimal parts: ipaddr.js also accepts forms like "0x0a.1" or "167772161",
 * which an operator almost certainly did not mean.
 */
export function parseIpOrCidr(value: string): string {
  const v = value.trim();
  if (v.includes('/')) {
    const ok = v.includes(':') ? ipaddr.IPv6.isValidCIDR(v) : ipaddr.IPv4.isValidCIDRFourPartDecimal(v);
    if (!ok)
      throw new UsageError('Expected an IP address or a CIDR range such as 10.0.0.0/8 or 2001:db8::/32.');
    const [addr, bits] = ipaddr.parseCIDR(v);
    return `${addr.toString()}/${bits}`;
  }
  const ok = v.includes(':')
    ? ipaddr.IPv6.isValid(v) && !v.includes('%')
    : ipaddr.IPv4.isValidFourPartDecimal(v);
  if (!ok)
    throw new UsageError('Expected an IP address or a CIDR range such as 10.0.0.0/8 or 2001:db8::/32.');
  return ipaddr.parse(v).toString();
}

/** A send priority. */
export function parsePriority(value: string): 'high' | 'normal' {
  return parseOneOf(value, ['high', 'normal'] as const);
}

/** For a repeatable option: commander hands the previous values back. */
export function collect<T>(value: T, previous: T[] | undefined): T[] {
  return [...(previous ?? []), value];
}

const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** An ISO 8601 date or date-time. Without an offset it is read as UTC, never as the machine's zone. */
export function parseIsoDate(value: string): Date {
  const m = ISO_DATE.exec(value.trim());
  const bad = () => new UsageError('Expected an ISO 8601 date such as 2030-01-31 or 2030-01-31T12:00:00Z.');
  if (!m) throw bad();
  const [, y, mo, d, h = '00', mi = '00', s = '00', fraction = '', zone = 'Z'] = m;
  const daysInMonth = new Date(Date.UTC(Number(y), Number(mo), 0)).getUTCDate();
  if (Number(mo) < 1 || Number(mo) > 12 || Number(d) < 1 || Number(d) > daysInMonth) throw bad();
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) throw bad();
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}${fraction.slice(0, 4)}${offset}`);
  if (Number.isNaN(date.getTime())) throw bad();
  return date;
}

export interface RateLimitValue {
  limit: number;
  windowSeconds: number;
}

/** N requests per SECONDS, e.g. 5/10; the window is at most a day. */
export function parseRateLimit(value: string): RateLimitValue {
  const m = /^(\d{1,9})\/(\d{1,6})$/.exec(value.trim());
  const limit = Number(m?.[1]);
  const windowSeconds = Number(m?.[2]);
  if (!m || limit < 1 || windowSeconds < 1 || windowSeconds > 86_400) {
    throw new UsageError('Expected N/SECONDS with N >= 1 and 1 <= SECONDS <= 86400, such as 100/1.');
  }
  return { limit, windowSeconds };
}

export function parseLimit(value: string): number {
  const n = /^\d{1,5}$/.test(value.trim()) ? Number(value) : NaN;
  if (!(n >= 1 && n <= 1000)) throw new UsageError('Expected a whole number from 1 to 1000.');
  return n;
}

/** How long to wait for a lock, in whole seconds: 0 (not at all) to 3600. */
export function parseWaitSeconds(value: string): number {
  const n = /^\d{1,4}$/.test(value.trim()) ? Number(value) : NaN;
  if (!(n >= 0 && n <= 3600)) throw new UsageError('Expected a whole number of seconds from 0 to 3600.');
  return n;
}
