import type { RateLimit } from '../../config/config.js';

/**
 * The most a sub-account's key may be allowed: as many requests per window as the parent's
 * most generous key allows per window, and no higher rate per second than its fastest key.
 * Both bounds are needed: 86400/86400 has the rate of 1/1 but lets a whole day's requests come
 * in one second.
 */
export interface RateCeiling {
  limit: number;
  perSecond: number;
}

/** The ceiling set by the parent's usable keys (a key without a limit has the default); the default when it has none. */
export function ceilingOf(parentKeys: Array<RateLimit | null>, fallback: RateLimit): RateCeiling {
  const rates = (parentKeys.length ? parentKeys : [null]).map((r) => r ?? fallback);
  return {
    limit: Math.max(...rates.map((r) => r.limit)),
    perSecond: Math.max(...rates.map((r) => r.limit / r.windowSeconds)),
  };
}

export function exceeds(rate: RateLimit, c: RateCeiling): boolean {
  return rate.limit > c.limit || rate.limit / rate.windowSeconds > c.perSecond;
}

/** The rate kept within the ceiling (the same window, fewer requests; a longer window when even one is too many). */
export function capped(rate: RateLimit, c: RateCeiling): RateLimit {
  if (!exceeds(rate, c)) return rate;
  const limit = Math.min(rate.limit, c.limit, Math.floor(c.perSecond * rate.windowSeconds));
  if (limit >= 1) return { limit, windowSeconds: rate.windowSeconds };
  return { limit: 1, windowSeconds: Math.min(86_400, Math.ceil(1 / c.perSecond)) };
}

export function describeRate(r: RateLimit): string {
  return `${r.limit}/${r.windowSeconds}`;
}
