import { Metadata } from 'libphonenumber-js/core';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import max from 'libphonenumber-js/max/metadata';

interface PremiumPlan {
  callingCode: string;
  /** The country's premium-rate pattern over the national number; null when it has none. */
  pattern: RegExp | null;
}

/** The part of the library's metadata reader used here (its typings declare less than it has). */
interface PlanReader {
  hasCountry(country: string): boolean;
  selectNumberingPlan(country: string): void;
  countryCallingCode(): string;
  type(name: 'PREMIUM_RATE'): { pattern(): string } | undefined;
}

const reader = new Metadata(max) as unknown as PlanReader;
const plans = new Map<string, PremiumPlan | null>();

function planOf(country: string): PremiumPlan | null {
  let plan = plans.get(country);
  if (plan === undefined) {
    const metadata = reader;
    if (!metadata.hasCountry(country)) plan = null;
    else {
      metadata.selectNumberingPlan(country);
      const source = metadata.type('PREMIUM_RATE')?.pattern();
      plan = {
        callingCode: metadata.countryCallingCode(),
        pattern: source ? new RegExp(`^(?:${source})$`) : null,
      };
    }
    plans.set(country, plan);
  }
  return plan;
}

/**
 * Whether a number (international digits) of `country` is a premium-rate number. The
 * country's premium-rate pattern is tried first, one regular expression per number, so a large
 * send costs little; only a number it matches is classified in full (the same classification
 * the number look-up shows), since a pattern can overlap a fixed-line or mobile range.
 */
export function isPremiumRate(digits: string, country: string | null): boolean {
  const plan = country ? planOf(country) : null;
  if (!plan?.pattern || !digits.startsWith(plan.callingCode)) return false;
  if (!plan.pattern.test(digits.slice(plan.callingCode.length))) return false;
  return parsePhoneNumberFromString(`+${digits}`)?.getType() === 'PREMIUM_RATE';
}
