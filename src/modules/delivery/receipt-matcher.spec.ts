import { describe, expect, it } from 'vitest';
import { matchRank, type ReceiptIdFormat } from './transports/receipt-ids.js';
import { bestMatches, compareIds, type PartRow } from './receipt-matcher.js';

/** The definition: every candidate ranked by matchRank, the lowest rank, then the newest message. */
function bruteForce(format: ReceiptIdFormat, candidates: PartRow[], receipts: string[]) {
  const found = new Map<string, PartRow>();
  for (const r of receipts) {
    let best: { row: PartRow; rank: number } | null = null;
    for (const c of candidates) {
      const rank = matchRank(format, c.provider_message_id, r);
      if (rank === null) continue;
      if (
        !best ||
        rank < best.rank ||
        (rank === best.rank && compareIds(c.message_id, best.row.message_id) > 0)
      )
        best = { row: c, rank };
    }
    if (best) found.set(r, best.row);
  }
  return found;
}

describe('bestMatches (receipt ids to the parts handed over)', () => {
  // Ids as SMSCs write them: hex in either case, zero-padded, the same number in decimal, text, repeats.
  const submitIds = [
    'A7BFE',
    'a7bfe',
    '000A7BFE',
    '12345',
    '0012345',
    '687102',
    'msg-1',
    'MSG-1',
    '7',
    '07',
    'ff',
    '255',
    '',
  ];
  const candidates: PartRow[] = submitIds.map((id, i) => ({
    message_id: String(1000 + ((i * 7) % submitIds.length)),
    part: 1 + (i % 2),
    provider_message_id: id,
  }));
  const receipts = [
    'A7BFE',
    '000a7bfe',
    '687102',
    '0000687102',
    '12345',
    '0012345',
    '74565',
    'msg-1',
    'MSG-1',
    '7',
    '0007',
    '255',
    'FF',
    'nothing',
    '  7  ',
  ];

  it.each(['auto', 'hex', 'decimal', 'string'] as const)(
    'picks, under %s, exactly what ranking every candidate by matchRank picks',
    (format) => {
      const got = bestMatches(format, candidates, receipts);
      const want = bruteForce(format, candidates, receipts);
      expect(Object.fromEntries([...got].map(([r, p]) => [r, `${p.message_id}/${p.part}`]))).toEqual(
        Object.fromEntries([...want].map(([r, p]) => [r, `${p.message_id}/${p.part}`])),
      );
      expect(got.size).toBeGreaterThan(0);
    },
  );

  it('ranks the same number in the same base above a hexadecimal id written in decimal, however new', () => {
    const rows: PartRow[] = [
      { message_id: '10', part: 1, provider_message_id: '0255' }, // 255 in the receipt's own base
      { message_id: '20', part: 1, provider_message_id: 'ff' }, // 0xff = 255, newer
    ];
    expect(bestMatches('auto', rows, ['255']).get('255')?.message_id).toBe('10');
    expect(bestMatches('decimal', rows, ['255']).get('255')?.message_id).toBe('20');
    expect(bestMatches('hex', rows, ['255']).get('255')?.message_id).toBe('10');
  });

  it('prefers the newest message among equal matches', () => {
    const rows: PartRow[] = [
      { message_id: '99', part: 1, provider_message_id: 'abc' },
      { message_id: '100', part: 1, provider_message_id: 'abc' },
      { message_id: '98', part: 1, provider_message_id: 'ABC' },
    ];
    expect(bestMatches('auto', rows, ['abc']).get('abc')?.message_id).toBe('100');
    // The same text beats the same number written differently, however new the other message.
    expect(
      bestMatches(
        'auto',
        [...rows, { message_id: '500', part: 1, provider_message_id: '0abc' }],
        ['abc'],
      ).get('abc')?.message_id,
    ).toBe('100');
  });
});
