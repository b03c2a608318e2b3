import { describe, expect, it } from 'vitest';
import { CountryPermissions, DEFAULT_RULE, parseCountries, type CountryRule } from './country-permissions.js';
import { isPremiumRate } from './premium-numbers.js';

const allow = (...countries: string[]): CountryRule => ({ mode: 'allow', countries, premium: false });
const block = (...countries: string[]): CountryRule => ({ mode: 'block', countries, premium: false });

describe('CountryPermissions', () => {
  it('lets every country through, even an unplaced number, when no rule restricts', () => {
    const p = new CountryPermissions([DEFAULT_RULE]);
    expect(p.allows('NG')).toBe(true);
    expect(p.allows(null)).toBe(true);
    expect(p.reachable()).toBeNull();
    expect(p.premium).toBe(false);
  });

  it('keeps to an allow list, and refuses a number of no known country', () => {
    const p = new CountryPermissions([allow('ZM', 'KE')]);
    expect(p.allows('ZM')).toBe(true);
    expect(p.allows('NG')).toBe(false);
    expect(p.allows(null)).toBe(false);
    expect(p.reachable()).toEqual(['KE', 'ZM']);
  });

  it('takes the intersection along a family: a child never reaches wider than its parent', () => {
    const p = new CountryPermissions([allow('ZM', 'KE', 'NG'), block('NG'), allow('ZM', 'TZ')]);
    expect(p.reachable()).toEqual(['ZM']);
    const child = new CountryPermissions([DEFAULT_RULE, allow('KE')]);
    expect(child.reachable()).toEqual(['KE']);
  });

  it('allows premium-rate numbers only when every rule of the family does', () => {
    const on = { ...DEFAULT_RULE, premium: true };
    expect(new CountryPermissions([on]).premium).toBe(true);
    expect(new CountryPermissions([on, DEFAULT_RULE]).premium).toBe(false);
  });
});

describe('parseCountries', () => {
  it('upper-cases, drops repeats, sorts and sets unknown names apart', () => {
    expect(parseCountries(' zm,KE,ZM')).toEqual({ countries: ['KE', 'ZM'], unknown: [] });
    expect(parseCountries(['ZM', 'XX', 'Zambia'])).toEqual({ countries: ['ZM'], unknown: ['XX', 'ZAMBIA'] });
  });
});

describe('isPremiumRate', () => {
  it('knows premium-rate ranges from the shipped number plan', () => {
    expect(isPremiumRate('449098790123', 'GB')).toBe(true);
    expect(isPremiumRate('19005550123', 'US')).toBe(true);
    expect(isPremiumRate('33899123456', 'FR')).toBe(true);
  });

  it('leaves mobile, fixed-line and unplaced numbers alone', () => {
    expect(isPremiumRate('260971234567', 'ZM')).toBe(false);
    expect(isPremiumRate('12025550123', 'US')).toBe(false);
    expect(isPremiumRate('447911123456', 'GB')).toBe(false);
    expect(isPremiumRate('8001234567', null)).toBe(false);
  });
});
