import { describe, expect, it } from 'vitest';
import { stringifyInSlices } from './json-slices.js';

describe('stringifyInSlices', () => {
  it('writes the same text as JSON.stringify, keys in their order, for arrays of any length', async () => {
    for (const n of [0, 1, 4_999, 5_000, 5_001, 12_345]) {
      const body = {
        api_reference: '123',
        data: Array.from({ length: n }, (_, i) => ({
          message_id: `m${i}`,
          mobile_number: `2609${i}`,
          status: 'ACKNOWLEDGED',
        })),
        message: 'successful "data":[] inside a string',
        success: true,
      };
      expect(await stringifyInSlices(body, 'data')).toBe(JSON.stringify(body));
    }
  });

  it('puts the array in its own place when a field before it holds an array of the same name', async () => {
    const body = { note: '"data":[]', meta: { data: [] }, data: [1, 2, 3], tail: null };
    expect(await stringifyInSlices(body, 'data')).toBe(JSON.stringify(body));
  });
});
