import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { countryOfNumber } from '../messages/windows/recipient-zone.js';

export const NUMBER_TYPES = [
  'mobile',
  'fixed_line',
  'fixed_line_or_mobile',
  'toll_free',
  'premium_rate',
  'voip',
  'unknown',
] as const;
export type NumberType = (typeof NUMBER_TYPES)[number];

/** What the shipped number plan says of a number, with no network call. */
export interface NumberFacts {
  /** International digits, no `+` (E.164). */
  number: string;
  valid: boolean;
  /** ISO 3166 alpha-2; null when the number belongs to no country (or no plan places it). */
  country: string | null;
  calling_code: string | null;
  type: NumberType;
}

/** A number's facts from its digits (already normalised: 8–15 digits with the calling code). */
export function numberFacts(digits: string): NumberFacts {
  const parsed = parsePhoneNumberFromString(`+${digits}`);
  const kind = parsed?.getType()?.toLowerCase();
  const placed = parsed?.country ?? countryOfNumber(digits);
  return {
    number: digits,
    valid: parsed?.isValid() ?? false,
    // "001" is the plan's name for the calling codes of no country (+800, +882, …).
    country: placed && placed !== '001' ? placed : null,
    calling_code: parsed?.countryCallingCode ?? null,
    type: NUMBER_TYPES.find((t) => t === kind) ?? 'unknown',
  };
}
