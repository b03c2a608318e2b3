import { describe, expect, it } from 'vitest';
import { shapeDifferences } from './readme-examples.js';

describe("the README test's comparison of an example with the real answer", () => {
  const shown = {
    recipients: [{ recipient: '260971234567', encoding: 'GSM-7', characters: 36, segments: 1, cost: 0.25 }],
    totals: { accepted: 1, balance: 99.25, currency: 'ZMW' },
  };

  it('fails on a wrong count or amount, not on an identifier or a time', () => {
    const real = {
      recipients: [{ recipient: '260979999999', encoding: 'GSM-7', characters: 43, segments: 1, cost: 0.25 }],
      totals: { accepted: 1, balance: 99.25, currency: 'ZMW' },
    };
    expect(shapeDifferences(shown, real)).toEqual(['$.recipients[0].characters: 43, the README shows 36']);
    expect(
      shapeDifferences(shown, { ...real, recipients: [{ ...real.recipients[0], characters: 36 }] }),
    ).toEqual([]);
  });

  it('still takes null in the README for any value', () => {
    expect(shapeDifferences({ cancelled: null }, { cancelled: 3 })).toEqual([]);
  });
});
