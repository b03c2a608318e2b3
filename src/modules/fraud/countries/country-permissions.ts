import { getCountries } from 'libphonenumber-js';

/** How an account's own setting reads: every country, only the listed ones, or all but them. */
export type CountryMode = 'all' | 'allow' | 'block';

/** One account's own setting, as stored (a sub-account's parent has one of its own). */
export interface CountryRule {
  mode: CountryMode;
  /** ISO 3166 alpha-2 names, upper case, sorted; empty for `all`. */
  countries: string[];
  /** Whether numbers of the premium-rate type may be sent to. */
  premium: boolean;
}

/** An account with no setting of its own: every country, no premium-rate numbers. */
export const DEFAULT_RULE: CountryRule = Object.freeze({ mode: 'all', countries: [], premium: false });

/** Every country the shipped number plan knows (the names a rule may list). */
export const KNOWN_COUNTRIES: ReadonlySet<string> = new Set(getCountries());

/** The reasons a recipient is refused with. */
export const COUNTRY_NOT_ALLOWED = 'COUNTRY_NOT_ALLOWED';
export const PREMIUM_NUMBER = 'PREMIUM_NUMBER';

/**
 * Where an account may send, once its own rule and its parent's are put together: a country
 * must pass every rule of the family, so a sub-account never reaches further than its parent.
 * Worked out once per account (then cached), so a recipient costs one set look-up.
 */
export class CountryPermissions {
  /** No rule restricts the countries: even a number of no known country may be sent to. */
  readonly open: boolean;
  readonly premium: boolean;
  private readonly allowed: ReadonlySet<string>;

  constructor(readonly rules: readonly CountryRule[]) {
    this.open = rules.every((r) => r.mode === 'all');
    this.premium = rules.every((r) => r.premium);
    let allowed = new Set(KNOWN_COUNTRIES);
    for (const r of rules) {
      const listed = new Set(r.countries);
      if (r.mode === 'allow') allowed = new Set([...allowed].filter((c) => listed.has(c)));
      if (r.mode === 'block') for (const c of listed) allowed.delete(c);
    }
    this.allowed = allowed;
  }

  /** Whether a number of this country (null: of none the plan can place) may be sent to. */
  allows(country: string | null): boolean {
    if (this.open) return true;
    return country !== null && this.allowed.has(country);
  }

  /** The countries a restricted family may reach, sorted; null when it may reach every one. */
  reachable(): string[] | null {
    return this.open ? null : [...this.allowed].sort();
  }
}

/**
 * A list of country names as a client or an operator writes it ("zm, KE" or ["ZM","KE"]):
 * upper-cased, repeats dropped, sorted; the names the number plan does not know, apart.
 */
export function parseCountries(raw: string | readonly string[]): { countries: string[]; unknown: string[] } {
  const items = (typeof raw === 'string' ? raw.split(',') : raw).map((c) => c.trim().toUpperCase());
  const countries = [...new Set(items.filter((c) => KNOWN_COUNTRIES.has(c)))].sort();
  const unknown = items.filter((c) => !KNOWN_COUNTRIES.has(c));
  return { countries, unknown };
}
