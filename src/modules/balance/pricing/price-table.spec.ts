import { describe, expect, it } from 'vitest';
import { PriceTable } from './price-table.js';

describe('PriceTable', () => {
  it('answers the longest matching prefix, else null (the channel price applies)', () => {
    const p = new PriceTable('sms', [
      { prefix: '260', cost_per_unit: '0.100000' },
      { prefix: '26097', cost_per_unit: '0.250000' },
    ]);
    expect(p.price('+260971234567')).toBe('0.250000');
    expect(p.price('+260961234567')).toBe('0.100000');
    expect(p.price('+441234567890')).toBeNull();
    expect(new PriceTable('sms', []).price('+260971234567')).toBeNull();
  });
});
