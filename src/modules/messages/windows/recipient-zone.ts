import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import metadata from 'libphonenumber-js/min/metadata';

/**
 * The most populous zone of each country whose zones do not all keep the same local time (a
 * country of one zone, or of zones that agree, needs no entry). The runtime's own list (Intl,
 * from CLDR) gives each country's zones, but in alphabetical order; recipient-zone.spec.ts
 * checks that every listed zone is among its country's and that no other country's zones
 * disagree. Names are as the runtime spells them.
 */
export const MOST_POPULOUS_ZONE: Readonly<Record<string, string>> = {
  AU: 'Australia/Sydney',
  BR: 'America/Sao_Paulo',
  CA: 'America/Toronto',
  CD: 'Africa/Kinshasa',
  CL: 'America/Santiago',
  CN: 'Asia/Shanghai',
  EC: 'America/Guayaquil',
  ES: 'Europe/Madrid',
  FM: 'Pacific/Truk',
  GL: 'America/Godthab',
  ID: 'Asia/Jakarta',
  KI: 'Pacific/Tarawa',
  MN: 'Asia/Ulaanbaatar',
  MX: 'America/Mexico_City',
  NZ: 'Pacific/Auckland',
  PF: 'Pacific/Tahiti',
  PG: 'Pacific/Port_Moresby',
  PT: 'Europe/Lisbon',
  RU: 'Europe/Moscow',
  UA: 'Europe/Kiev',
  US: 'America/New_York',
};

/** A country's zones as the runtime lists them (empty when it knows none). */
export function zonesOfCountry(country: string): string[] {
  try {
    return (new Intl.Locale(`und-${country}`) as Intl.Locale & { timeZones?: string[] }).timeZones ?? [];
  } catch {
    return [];
  }
}

const byCountry = new Map<string, string | null>();

/** The zone whose local time a country's recipients keep; null when the runtime knows none. */
export function zoneOfCountry(country: string): string | null {
  let zone = byCountry.get(country);
  if (zone === undefined) {
    zone = MOST_POPULOUS_ZONE[country] ?? zonesOfCountry(country)[0] ?? null;
    byCountry.set(country, zone);
  }
  return zone;
}

const callingCodes = (metadata as unknown as { country_calling_codes: Record<string, string[]> })
  .country_calling_codes;

/** Numbers of shared calling codes, by their first digits: enough to tell the country (area codes, island ranges). */
const SHARED_KEY_DIGITS = 7;
const SHARED_CACHE_MAX = 50_000;
const sharedCache = new Map<string, string | null>();

/**
 * The country of a number (digits with the country calling code, as recipients are stored).
 * A calling code of one country gives it at once; one that several share (+1, +7, +44, …) is
 * told apart by the number's own digits (libphonenumber-js), remembered per leading digits so
 * a large send parses each range once; a number it cannot place goes to the code's main country.
 */
export function countryOfNumber(digits: string): string | null {
  for (let len = 1; len <= 3; len++) {
    const countries = callingCodes[digits.slice(0, len)];
    if (!countries) continue;
    if (countries.length === 1) return countries[0]!;
    const key = digits.slice(0, SHARED_KEY_DIGITS);
    let country = sharedCache.get(key);
    if (country === undefined) {
      country =
        (parsePhoneNumberFromString(`+${digits}`)?.country as CountryCode | undefined) ?? countries[0]!;
      if (sharedCache.size >= SHARED_CACHE_MAX) sharedCache.clear();
      sharedCache.set(key, country);
    }
    return country;
  }
  return null;
}

/** The zone of a number's country; null when the number's country or its zone is unknown. */
export function zoneOfNumber(digits: string): string | null {
  const country = countryOfNumber(digits);
  return country ? zoneOfCountry(country) : null;
}
