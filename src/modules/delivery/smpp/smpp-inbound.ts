import smpp from 'smpp';
import type { InboundSms } from '../transports/transport.js';

// A deliver_sm that is not a receipt is a message from a handset (mobile originated). The smpp
// library has already decoded its text by data_coding; what is left is read here.

const IEI_CONCAT_8 = 0x00;
const IEI_CONCAT_16 = 0x08;
/** 16-bit references are kept apart from 8-bit ones with the same number. */
const REF16_OFFSET = 0x10000;

function textOf(value: smpp.PduParams['short_message'], dataCoding: number): string {
  if (value === undefined || value === null) return '';
  const message = typeof value === 'string' || Buffer.isBuffer(value) ? value : value.message;
  if (Buffer.isBuffer(message)) {
    // A coding the library does not read (8-bit data, Cyrillic, ...): Latin-1 keeps every byte visible.
    return message.toString('latin1');
  }
  // data_coding 1 is IA5 (ASCII), which the library reads as the GSM alphabet: '@' would come out
  // as '¡'. Back to the octets, then as they were meant.
  if ((dataCoding & 0x0f) === 1) return smpp.gsmCoder.encode(message, 0).toString('latin1');
  return message;
}

function concatOf(pdu: smpp.PDU): InboundSms['concat'] {
  const value = pdu.short_message;
  const udh =
    value && typeof value === 'object' && !Buffer.isBuffer(value) && 'udh' in value ? value.udh : null;
  for (const ie of Array.isArray(udh) ? udh : []) {
    if (ie[0] === IEI_CONCAT_8 && ie[1] === 3 && ie.length >= 5)
      return { ref: ie[2], total: ie[3], seq: ie[4] };
    if (ie[0] === IEI_CONCAT_16 && ie[1] === 4 && ie.length >= 6)
      return { ref: REF16_OFFSET + ((ie[2] << 8) | ie[3]), total: ie[4], seq: ie[5] };
  }
  // SMPP's own way: the sar_* TLVs (a 16-bit reference).
  if (pdu.sar_total_segments && pdu.sar_segment_seqnum && pdu.sar_msg_ref_num !== undefined)
    return {
      ref: REF16_OFFSET + (pdu.sar_msg_ref_num & 0xffff),
      total: pdu.sar_total_segments,
      seq: pdu.sar_segment_seqnum,
    };
  return undefined;
}

/** The message a handset sent, or one part of it. */
export function parseInboundSms(pdu: smpp.PDU): InboundSms {
  const coding = pdu.data_coding ?? 0;
  const short = textOf(pdu.short_message, coding);
  const text = short !== '' ? short : textOf(pdu.message_payload, coding);
  const concat = concatOf(pdu);
  return {
    from: (pdu.source_addr ?? '').trim(),
    to: (pdu.destination_addr ?? '').trim(),
    text,
    ...(concat && concat.total > 1 ? { concat } : {}),
  };
}
