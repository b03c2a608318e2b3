import { describe, expect, it } from 'vitest';
import { numberFacts } from './number-facts.js';

describe('numberFacts', () => {
  it('names the country, calling code and type from the shipped number plan', () => {
    expect(numberFacts('260971234567')).toEqual({
      number: '260971234567',
      valid: true,
      country: 'ZM',
      calling_code: '260',
      type: 'mobile',
    });
    expect(numberFacts('260211234567')).toMatchObject({ country: 'ZM', type: 'fixed_line' });
    expect(numberFacts('447400123456')).toMatchObject({ country: 'GB', type: 'mobile' });
    expect(numberFacts('449098790123')).toMatchObject({ country: 'GB', type: 'premium_rate' });
    expect(numberFacts('18005550123')).toMatchObject({ country: 'US', type: 'toll_free' });
  });

  it('tells a shared calling code apart by the number (+1: Canada, not the United States)', () => {
    expect(numberFacts('14165550123')).toMatchObject({ country: 'CA', calling_code: '1' });
  });

  it('answers unknown for a number the plan does not know, and no country for a non-geographic code', () => {
    expect(numberFacts('260999999')).toMatchObject({ valid: false, country: 'ZM', type: 'unknown' });
    expect(numberFacts('80012345678')).toMatchObject({ country: null, calling_code: '800' });
  });
});
