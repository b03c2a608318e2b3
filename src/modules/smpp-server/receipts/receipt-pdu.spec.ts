import { describe, expect, it } from 'vitest';
import { deliverSmFields, receiptDate, receiptPdu, receiptText, wantsReceipt } from './receipt-pdu.js';

const base = {
  messageId: '1234567',
  recipient: '447700900123',
  sender: 'ACME',
  submittedAt: new Date('2026-12-06T09:05:00Z'),
  doneAt: new Date('2026-12-06T09:07:31Z'),
  text: 'Your code is 123456, valid 10 minutes',
};

describe('SMPP receipts', () => {
  it('asks for a receipt of every final state with 1, of failures only with 2, of none otherwise', () => {
    expect(wantsReceipt(1, 'DELIVERED')).toBe(true);
    expect(wantsReceipt(1, 'CANCELLED')).toBe(true);
    expect(wantsReceipt(2, 'DELIVERED')).toBe(false);
    expect(wantsReceipt(2, 'UNDELIVERED')).toBe(true);
    expect(wantsReceipt(2, 'REJECTED')).toBe(true);
    expect(wantsReceipt(0, 'UNDELIVERED')).toBe(false);
    expect(wantsReceipt(null, 'DELIVERED')).toBe(false);
    expect(wantsReceipt(1, 'SENT')).toBe(false);
    expect(wantsReceipt(1, 'ACKNOWLEDGED')).toBe(false);
  });

  it('writes the receipt text in the form SMSCs use, dates as yyMMddHHmm in UTC', () => {
    expect(receiptDate(new Date('2026-01-02T03:04:59Z'))).toBe('2601020304');
    expect(receiptText({ ...base, status: 'DELIVERED' })).toBe(
      'id:1234567 sub:001 dlvrd:001 submit date:2612060905 done date:2612060907 stat:DELIVRD err:000 text:Your code is 123456,',
    );
  });

  it('names REJECTED as REJECTD, CANCELLED as DELETED, and counts nothing delivered for them', () => {
    expect(receiptText({ ...base, status: 'REJECTED' })).toMatch(/ dlvrd:000 .* stat:REJECTD err:\d{3} /);
    expect(receiptText({ ...base, status: 'CANCELLED' })).toMatch(/ stat:DELETED err:\d{3} /);
    expect(receiptText({ ...base, status: 'EXPIRED' })).toMatch(/ stat:EXPIRED /);
    expect(receiptText({ ...base, status: 'FAILED' })).toMatch(/ stat:UNDELIV /);
  });

  it('quotes only characters that read the same in ASCII and GSM 03.38', () => {
    expect(receiptText({ ...base, status: 'DELIVERED', text: 'Café @ 5€_ok' })).toMatch(
      /text:Caf\? \? 5\?\?ok$/,
    );
  });

  it('sends a receipt as esm_class 4 with receipted_message_id and message_state', () => {
    const fields = deliverSmFields(receiptPdu({ ...base, status: 'UNDELIVERED' }));
    expect(fields).toMatchObject({
      source_addr: '447700900123',
      source_addr_ton: 1,
      destination_addr: 'ACME',
      dest_addr_ton: 5,
      esm_class: 0x04,
      receipted_message_id: '1234567',
      message_state: 5,
    });
    expect((fields.short_message as Buffer).toString('ascii')).toContain('stat:UNDELIV');
  });

  it('sends an inbound SMS as esm_class 0: GSM text as data_coding 0, anything else as UCS-2', () => {
    const gsm = deliverSmFields({
      kind: 'inbound',
      source: '447700900123',
      destination: '447700900999',
      text: 'Hi @home £5',
    });
    expect(gsm).toMatchObject({ esm_class: 0, data_coding: 0, short_message: 'Hi @home £5' });
    const ucs2 = deliverSmFields({
      kind: 'inbound',
      source: '447700900123',
      destination: '447700900999',
      text: 'Привет 👋',
    });
    expect(ucs2).toMatchObject({ data_coding: 8 });
    expect(
      Buffer.from(ucs2.short_message as Buffer)
        .swap16()
        .toString('utf16le'),
    ).toBe('Привет 👋');
  });

  it('puts a text longer than short_message holds into message_payload', () => {
    const long = deliverSmFields({ kind: 'inbound', source: '1', destination: '2', text: 'x'.repeat(300) });
    expect(long.short_message).toBeUndefined();
    expect(long.message_payload).toBe('x'.repeat(300));
  });
});
