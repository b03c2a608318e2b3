import { describe, expect, it } from 'vitest';
import { combineParts } from '../receipts/receipt-matcher.js';
import { idKeys, matchRank, submitKeysFor } from './receipt-ids.js';

describe('receipt id matching', () => {
  it('reads ids as hexadecimal and decimal numbers, case and leading zeros aside', () => {
    expect(idKeys('A7BFE')).toEqual({ raw: 'A7BFE', hex: '687102', dec: null });
    expect(idKeys('000a7bfe')).toEqual({ raw: '000a7bfe', hex: '687102', dec: null });
    expect(idKeys('0687102')).toEqual({ raw: '0687102', hex: String(0x687102), dec: '687102' });
    expect(idKeys('ab_c@1')).toEqual({ raw: 'ab_c@1', hex: null, dec: null });
    // 128-bit ids stay exact (BigInt, not floating point).
    expect(idKeys('ffffffffffffffffffffffffffffffff').hex).toBe('340282366920938463463374607431768211455');
    expect(idKeys('1'.repeat(40)).dec).toBeNull();
  });

  it('auto: exact, then the same number, then the hexadecimal submit id written in decimal', () => {
    expect(matchRank('auto', 'A7BFE', 'A7BFE')).toBe(0);
    expect(matchRank('auto', 'A7BFE', '000a7bfe')).toBe(1);
    expect(matchRank('auto', 'A7BFE', '687102')).toBe(2);
    expect(matchRank('auto', 'A7BFE', '0000687102')).toBe(2);
    expect(matchRank('auto', '12345', '0012345')).toBe(1);
    expect(matchRank('auto', 'A7BFE', '687103')).toBeNull();
    expect(matchRank('auto', 'msg-1', 'MSG-1')).toBeNull();
  });

  it('hex, decimal and string accept only their own form (and the exact id)', () => {
    expect(matchRank('hex', 'A7BFE', '0a7bfe')).toBe(1);
    expect(matchRank('hex', 'A7BFE', '687102')).toBeNull();
    expect(matchRank('decimal', 'A7BFE', '687102')).toBe(2);
    expect(matchRank('decimal', 'A7BFE', '0a7bfe')).toBeNull();
    expect(matchRank('decimal', 'A7BFE', 'A7BFE')).toBe(0);
    expect(matchRank('string', 'A7BFE', 'a7bfe')).toBeNull();
    expect(matchRank('string', 'A7BFE', 'A7BFE')).toBe(0);
  });

  it('looks up the stored submit keys a receipt id may match', () => {
    expect(submitKeysFor('auto', '687102').sort()).toEqual([String(0x687102), '687102'].sort());
    expect(submitKeysFor('hex', '687102')).toEqual([String(0x687102)]);
    expect(submitKeysFor('decimal', '687102')).toEqual(['687102']);
    expect(submitKeysFor('string', '687102')).toEqual([]);
  });
});

describe('multipart state', () => {
  const p = (status: string | null, reason: string | null = null) => ({ status, reason });

  it('is DELIVERED only when every part is', () => {
    expect(combineParts([p('DELIVERED'), p(null), p('DELIVERED')])).toBeNull();
    expect(combineParts([p('DELIVERED'), p('DELIVERED')])).toEqual({ status: 'DELIVERED', reason: null });
  });

  it('is the worst part state as soon as one part is not delivered', () => {
    expect(combineParts([p('UNDELIVERED', 'UNDELIV err:001'), p(null), p('DELIVERED')])).toEqual({
      status: 'UNDELIVERED',
      reason: 'UNDELIV err:001',
    });
    expect(combineParts([p('EXPIRED', 'EXPIRED'), p('REJECTED', 'REJECTD'), p('UNDELIVERED', 'x')])).toEqual({
      status: 'REJECTED',
      reason: 'REJECTD',
    });
    expect(combineParts([p(null), p(null)])).toBeNull();
  });
});
