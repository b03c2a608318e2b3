import { describe, expect, it } from 'vitest';
import {
  parseDeliveryReceipt,
  parseReceiptDate,
  parseReceiptText,
  type ReceiptInput,
} from './smpp-receipt.js';

const NOW = new Date('2025-06-01T12:00:00Z');

function receipt(stat: string, extra = ''): string {
  return `id:0a1b2c3d sub:001 dlvrd:001 submit date:2506011150 done date:2506011155 stat:${stat} err:000${extra} text:Hello`;
}

describe('parseReceiptText', () => {
  it('reads every field, the text running to the end', () => {
    expect(
      parseReceiptText(
        'id:abc_1 sub:001 dlvrd:000 submit date:2506011150 done date:250601115512 stat:UNDELIV err:013 text:a stat:x id:y',
      ),
    ).toEqual({
      id: 'abc_1',
      sub: '001',
      dlvrd: '000',
      submitDate: '2506011150',
      doneDate: '250601115512',
      stat: 'UNDELIV',
      err: '013',
      text: 'a stat:x id:y',
    });
  });

  it('accepts upper-case keys and underscored date keys', () => {
    expect(
      parseReceiptText(
        'ID:77 SUB:1 DLVRD:1 SUBMIT_DATE:2506011150 DONE_DATE:2506011151 STAT:DELIVRD ERR:0 Text:',
      ),
    ).toMatchObject({
      id: '77',
      submitDate: '2506011150',
      doneDate: '2506011151',
      stat: 'DELIVRD',
      err: '0',
      text: '',
    });
  });
});

describe('parseReceiptDate', () => {
  it.each([
    ['2506011155', '2025-06-01T11:55:00.000Z'],
    ['250601115530', '2025-06-01T11:55:30.000Z'],
    ['2502310000', null], // 31 February
    ['2513010000', null],
    ['25060111', null],
    [undefined, null],
  ])('%s → %s', (value, expected) => {
    expect(parseReceiptDate(value)?.toISOString() ?? null).toBe(expected);
  });
});

describe('parseDeliveryReceipt', () => {
  const finals: Array<[string, string, string | null]> = [
    ['DELIVRD', 'DELIVERED', null],
    ['UNDELIV', 'UNDELIVERED', 'UNDELIV'],
    ['EXPIRED', 'EXPIRED', 'EXPIRED'],
    ['REJECTD', 'REJECTED', 'REJECTD'],
    ['DELETED', 'UNDELIVERED', 'DELETED'],
    ['UNKNOWN', 'UNDELIVERED', 'UNKNOWN'],
    ['delivrd', 'DELIVERED', null],
    ['DELIVERED', 'DELIVERED', null],
    ['UNDELIVERABLE', 'UNDELIVERED', 'UNDELIVERABLE'],
  ];
  it.each(finals)('stat:%s → %s', (stat, status, reason) => {
    expect(parseDeliveryReceipt({ text: receipt(stat) }, NOW)).toEqual({
      kind: 'final',
      report: {
        providerMessageId: '0a1b2c3d',
        status,
        reason,
        occurredAt: new Date('2025-06-01T11:55:00Z'),
      },
    });
  });

  it.each(['ACCEPTD', 'ENROUTE'])('stat:%s is not final', (stat) => {
    expect(parseDeliveryReceipt({ text: receipt(stat) }, NOW)).toEqual({
      kind: 'pending',
      providerMessageId: '0a1b2c3d',
      stat,
    });
  });

  it('puts a non-zero err into the reason', () => {
    const parsed = parseDeliveryReceipt({ text: receipt('UNDELIV').replace('err:000', 'err:034') }, NOW);
    expect(parsed).toMatchObject({
      kind: 'final',
      report: { status: 'UNDELIVERED', reason: 'UNDELIV err:034' },
    });
  });

  const tlvCases: Array<[string, ReceiptInput, object]> = [
    [
      'receipted_message_id wins over the text id',
      { text: receipt('DELIVRD'), receiptedMessageId: 'ABC123' },
      { kind: 'final', report: { providerMessageId: 'ABC123', status: 'DELIVERED' } },
    ],
    [
      'message_state wins over the text stat',
      { text: receipt('DELIVRD'), messageState: 5 },
      { kind: 'final', report: { status: 'UNDELIVERED', reason: 'UNDELIVERABLE' } },
    ],
    [
      'TLVs alone are enough',
      { text: '', receiptedMessageId: 'X1', messageState: 3 },
      { kind: 'final', report: { providerMessageId: 'X1', status: 'EXPIRED', occurredAt: NOW } },
    ],
    [
      'message_state ACCEPTED is not final',
      { receiptedMessageId: 'X1', messageState: 6 },
      { kind: 'pending', stat: 'ACCEPTED' },
    ],
    [
      'message_state REJECTED',
      { receiptedMessageId: 'X1', messageState: 8 },
      { kind: 'final', report: { status: 'REJECTED' } },
    ],
    ['no id anywhere', { text: 'sub:001 stat:DELIVRD' }, { kind: 'invalid' }],
    ['no stat anywhere', { text: 'id:1 sub:001' }, { kind: 'invalid' }],
    ['an unknown stat word', { text: 'id:1 stat:WHATEVER' }, { kind: 'invalid' }],
    [
      'an unknown message_state falls back to the text',
      { text: 'id:1 stat:DELIVRD', messageState: 42 },
      { kind: 'final', report: { status: 'DELIVERED' } },
    ],
  ];
  it.each(tlvCases)('%s', (_name, input, expected) => {
    expect(parseDeliveryReceipt(input, NOW)).toMatchObject(expected);
  });

  it('uses the arrival time when the done date is missing, malformed or in the future', () => {
    for (const text of [
      'id:1 stat:DELIVRD',
      'id:1 done date:99999 stat:DELIVRD',
      'id:1 done date:2506011400 stat:DELIVRD', // two hours ahead: an SMSC on local time
    ]) {
      expect(parseDeliveryReceipt({ text }, NOW)).toMatchObject({
        kind: 'final',
        report: { occurredAt: NOW },
      });
    }
  });
});
