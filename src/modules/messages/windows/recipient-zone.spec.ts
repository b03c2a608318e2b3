import { getCountries } from 'libphonenumber-js';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import {
  countryOfNumber,
  MOST_POPULOUS_ZONE,
  zoneOfCountry,
  zoneOfNumber,
  zonesOfCountry,
} from './recipient-zone.js';

/** A zone's UTC offsets through a year: zones that agree on these keep the same local time. */
function rules(zone: string): string {
  return [0, 2, 3, 4, 6, 9, 10, 11]
    .map((month) => DateTime.fromMillis(Date.UTC(2026, month, 15), { zone }).offset)
    .join(',');
}

describe('recipient zones', () => {
  it('places numbers by calling code, telling apart countries that share one', () => {
    expect(countryOfNumber('260971234567')).toBe('ZM');
    expect(countryOfNumber('12125550123')).toBe('US');
    expect(countryOfNumber('14165550123')).toBe('CA');
    expect(countryOfNumber('79161234567')).toBe('RU');
    expect(countryOfNumber('77011234567')).toBe('KZ');
    expect(zoneOfNumber('260971234567')).toBe('Africa/Lusaka');
    expect(zoneOfNumber('12125550123')).toBe('America/New_York');
    expect(zoneOfNumber('61412345678')).toBe('Australia/Sydney');
    expect(zoneOfNumber('5511912345678')).toBe('America/Sao_Paulo');
  });

  it('gives a number the runtime cannot place to the main country of its calling code', () => {
    expect(countryOfNumber('12000000000')).toBe('US');
    expect(countryOfNumber('999123456789')).toBeNull();
  });

  it('lists only zones of their own country, each for a country whose zones disagree', () => {
    for (const [country, zone] of Object.entries(MOST_POPULOUS_ZONE)) {
      expect(zonesOfCountry(country), country).toContain(zone);
      expect(new Set(zonesOfCountry(country).map(rules)).size, country).toBeGreaterThan(1);
    }
  });

  it('needs no entry for any other country: its zones keep one local time', () => {
    for (const country of getCountries()) {
      if (MOST_POPULOUS_ZONE[country]) continue;
      const zones = zonesOfCountry(country);
      expect(new Set(zones.map(rules)).size, `${country}: ${zones.join(' ')}`).toBeLessThanOrEqual(1);
      expect(zoneOfCountry(country)).toBe(zones[0] ?? null);
    }
  });
});
