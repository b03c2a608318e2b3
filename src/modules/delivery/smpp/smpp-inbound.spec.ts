import smpp from 'smpp';
import { describe, expect, it } from 'vitest';
import { parseInboundSms } from './smpp-inbound.js';

/** A deliver_sm as it arrives: encoded to bytes and read back by the library. */
function arrive(params: smpp.PduParams): smpp.PDU {
  const pdu = smpp.PDU.fromBuffer(
    new smpp.PDU('deliver_sm', {
      source_addr: '260971234567',
      destination_addr: '55555',
      ...params,
    }).toBuffer(),
  );
  if (!pdu) throw new Error('did not parse');
  return pdu;
}

describe('inbound deliver_sm', () => {
  it('reads GSM 03.38, UCS-2, Latin-1 and IA5 texts as written', () => {
    expect(parseInboundSms(arrive({ data_coding: 0, short_message: 'Hi @home £5 {x}' })).text).toBe(
      'Hi @home £5 {x}',
    );
    expect(parseInboundSms(arrive({ data_coding: 8, short_message: 'Привет 👋' })).text).toBe('Привет 👋');
    expect(parseInboundSms(arrive({ data_coding: 3, short_message: 'Café' })).text).toBe('Café');
    expect(parseInboundSms(arrive({ data_coding: 1, short_message: Buffer.from('a@b_c') })).text).toBe(
      'a@b_c',
    );
  });

  it('takes the text from message_payload when short_message is empty', () => {
    expect(
      parseInboundSms(arrive({ data_coding: 0, short_message: '', message_payload: 'from the payload' }))
        .text,
    ).toBe('from the payload');
  });

  it('reads the concatenation reference from an 8-bit or 16-bit UDH, or from the sar_* TLVs', () => {
    const udh8 = arrive({ short_message: { udh: Buffer.from([5, 0, 3, 9, 3, 2]), message: 'two' } });
    expect(parseInboundSms(udh8)).toMatchObject({ text: 'two', concat: { ref: 9, total: 3, seq: 2 } });
    const udh16 = arrive({ short_message: { udh: Buffer.from([6, 8, 4, 1, 2, 2, 1]), message: 'one' } });
    expect(parseInboundSms(udh16).concat).toEqual({ ref: 0x10000 + 0x0102, total: 2, seq: 1 });
    const sar = arrive({
      short_message: 'x',
      sar_msg_ref_num: 7,
      sar_total_segments: 2,
      sar_segment_seqnum: 2,
    });
    expect(parseInboundSms(sar).concat).toEqual({ ref: 0x10007, total: 2, seq: 2 });
    expect(parseInboundSms(arrive({ short_message: 'whole' }))).not.toHaveProperty('concat');
  });
});
