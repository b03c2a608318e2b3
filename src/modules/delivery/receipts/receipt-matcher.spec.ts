import { describe, expect, it } from 'vitest';
import { matchRank, type ReceiptIdFormat } from '../smpp/receipt-ids.js';
import { bestMatches, compareIds, receiptKey, type PartRow, type ReceiptRef } from './receipt-matcher.js';

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

describe('bestMatches within the connector a receipt arrived on', () => {
  // Two SMSCs that number their messages 1, 2, 3… issue the same ids.
  const rows: PartRow[] = [
    { message_id: '5', part: 1, provider_message_id: '1', connector: null }, // sent before connectors were recorded
    { message_id: '10', part: 1, provider_message_id: '1', connector: 'smsc-a' },
    { message_id: '20', part: 1, provider_message_id: '1', connector: 'smsc-b' },
    { message_id: '30', part: 1, provider_message_id: '2', connector: 'smsc-b' },
  ];
  const a: ReceiptRef = { providerMessageId: '1', connector: 'smsc-a' };
  const b: ReceiptRef = { providerMessageId: '1', connector: 'smsc-b' };

  it("gives each connector's receipt its own connector's part when two connectors issued the same id", () => {
    const found = bestMatches('auto', rows, [a, b]);
    expect(found.get(receiptKey(a))?.message_id).toBe('10');
    expect(found.get(receiptKey(b))?.message_id).toBe('20');
    expect(receiptKey(a)).not.toBe(receiptKey(b));
  });

  it('matches a message with no connector recorded from any connector, and never one of another connector', () => {
    const c: ReceiptRef = { providerMessageId: '1', connector: 'smsc-c' };
    expect(bestMatches('auto', rows, [c]).get(receiptKey(c))?.message_id).toBe('5');
    const a2: ReceiptRef = { providerMessageId: '2', connector: 'smsc-a' };
    expect(bestMatches('auto', rows, [a2]).size).toBe(0);
  });

  it('matches a receipt without a connector as before: any candidate, the newest among equals', () => {
    expect(bestMatches('auto', rows, ['1']).get('1')?.message_id).toBe('20');
    const none: ReceiptRef = { providerMessageId: '1', connector: null };
    expect(receiptKey(none)).toBe('1');
    expect(bestMatches('auto', rows, [none]).get('1')?.message_id).toBe('20');
  });

  it.each(['auto', 'hex', 'decimal', 'string'] as const)(
    'picks, under %s, what ranking the candidates of the same connector or none by matchRank picks',
    (format) => {
      const ids = ['A7BFE', '000A7BFE', '687102', '12345', '7', '07', 'ff', '255', 'msg-1'];
      const connectors = ['x', 'y', null];
      const candidates: PartRow[] = ids.flatMap((id, i) =>
        connectors.map((connector, j) => ({
          message_id: String(100 + ((i * 5 + j * 11) % 41)),
          part: 1,
          provider_message_id: id,
          connector,
        })),
      );
      const receipts: ReceiptRef[] = ['a7bfe', '687102', '0012345', '0007', '255', 'FF', 'msg-1'].flatMap(
        (r) => [...connectors, 'z'].map((connector) => ({ providerMessageId: r, connector })),
      );
      const got = bestMatches(format, candidates, receipts);
      for (const r of receipts) {
        const own = candidates.filter(
          (c) => !r.connector || c.connector === null || c.connector === r.connector,
        );
        const want = bruteForce(format, own, [r.providerMessageId]).get(r.providerMessageId);
        expect(got.get(receiptKey(r)), `${r.connector}/${r.providerMessageId}`).toEqual(want);
      }
      expect(got.size).toBeGreaterThan(0);
    },
  );
});
