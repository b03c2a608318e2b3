import smpp from 'smpp';
import { countSegments, encodeGsm7, splitSegments } from '../../messages/segments.js';
import type { OutboundMessage } from '../transports/transport.js';

// SMPP 3.4 encoding for the SMPP transport: endpoint URLs, command statuses, submit_sm fields, receipt text.

export interface SmppEndpoint {
  host: string;
  port: number;
  systemId: string;
  password: string;
}

export function parseSmppUrl(url: string): SmppEndpoint {
  const u = new URL(url);
  if (u.protocol !== 'smpp:') throw new Error(`SMPP URL must start with smpp:// (got ${u.protocol}//)`);
  if (!u.hostname) throw new Error('SMPP URL has no host');
  return {
    // URL keeps IPv6 literals bracketed; net.connect wants them bare.
    host: u.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: u.port ? Number(u.port) : 2775,
    systemId: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
  };
}

export const ESME_ROK = 0x00;
export const ESME_RINVCMDID = 0x03;
export const ESME_RMSGQFUL = 0x14;
export const ESME_RTHROTTLED = 0x58;
/** Temporary application error: the SMSC keeps the deliver_sm and tries again later. */
export const ESME_RX_T_APPN = 0x64;
export const ESM_CLASS_RECEIPT = 0x04;
export const ESM_CLASS_UDHI = 0x40;
export const DATA_CODING_DEFAULT = 0x00;
export const DATA_CODING_UCS2 = 0x08;

export function smppStatusCode(status: number): string {
  return `SMPP_${status.toString(16).toUpperCase().padStart(8, '0')}`;
}

const STATUS_NAMES = new Map<number, string>(Object.entries(smpp.errors).map(([name, code]) => [code, name]));

export function describeStatus(status: number): string {
  const name = STATUS_NAMES.get(status);
  return name ? `${name} (${smppStatusCode(status)})` : smppStatusCode(status);
}

/**
 * SMPP 3.4's relative time form, YYMMDDhhmmss000R, for the seconds left until `until` (at least
 * one). Relative needs no agreement on the SMSC's clock or time zone, which the absolute form does.
 */
export function relativeValidity(until: Date, now: Date = new Date()): string {
  let s = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
  const days = Math.min(99, Math.floor(s / 86_400));
  s -= days * 86_400;
  const two = (n: number) => String(n).padStart(2, '0');
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  return `0000${two(days)}${two(hours)}${two(minutes)}${two(s % 60)}000R`;
}

/** UTF-16BE, data_coding 8. */
const encodeUcs2 = (text: string) => Buffer.from(text, 'utf16le').swap16();

/**
 * submit_sm fields for one message, one entry per segment. Exported so the exact bytes can be checked
 * without a connection. The text goes encoded by data_coding: 0 → GSM 03.38 default alphabet, one
 * septet per octet (unpacked, as SMPP expects) with ESC pairs for the extension table; 8 → UTF-16BE.
 * countSegments only says GSM7 when every character is in that same table, so nothing degrades to '?' or ' '.
 * The octets are made here rather than by the library, which rebuilds its GSM tables' key list and a
 * regular expression for every message it encodes.
 */
export function buildSubmitSm(message: OutboundMessage, ref: number): smpp.PduParams[] {
  const { encoding, segments } = countSegments(message.body);
  const sender = message.sender ?? '';
  const numericSender = /^\+?\d+$/.test(sender);
  // The time left of the message's validity: an SMSC that cannot deliver it by then drops it too.
  const validity = message.validUntil ? { validity_period: relativeValidity(message.validUntil) } : {};
  // Each PDU's own fields first and the validity spread last: a property written after a spread
  // would give every PDU a hidden class of its own (see platform/objects/with-fields.ts).
  const encode = encoding === 'GSM7' ? encodeGsm7 : encodeUcs2;
  const pdu = (esm_class: number, short_message: Buffer): smpp.PduParams => ({
    source_addr_ton: sender === '' ? 0 : numericSender ? 1 : 5,
    source_addr_npi: numericSender ? 1 : 0,
    source_addr: numericSender ? sender.replace(/^\+/, '') : sender,
    dest_addr_ton: 1,
    dest_addr_npi: 1,
    destination_addr: message.recipient.replace(/^\+/, ''),
    registered_delivery: 1,
    data_coding: encoding === 'GSM7' ? DATA_CODING_DEFAULT : DATA_CODING_UCS2,
    esm_class,
    short_message,
    ...validity,
  });
  if (segments === 1) return [pdu(0, encode(message.body))];

  const parts = splitSegments(message.body);
  if (parts.length > 255) throw new Error(`message needs ${parts.length} segments, the UDH allows 255`);
  return parts.map((text, i) =>
    // IEI 00 = concatenated SM with an 8-bit reference, in front of the encoded text.
    pdu(
      ESM_CLASS_UDHI,
      Buffer.concat([Buffer.from([0x05, 0x00, 0x03, ref & 0xff, parts.length, i + 1]), encode(text)]),
    ),
  );
}

/**
 * The receipt as the SMSC wrote it. With data_coding 0 the library has already read the octets as GSM 03.38,
 * which turns ASCII '_' into '§', '@' into '¡' and so on; receipts are ASCII in practice, so encoding back to the
 * GSM octets and reading those as Latin-1 restores what was sent (the GSM round trip is exact for 7-bit input).
 */
export function receiptText(pdu: smpp.PDU): string {
  const value = pickMessage(pdu.short_message) || pickMessage(pdu.message_payload);
  if (value === null || value === '') return '';
  if (Buffer.isBuffer(value)) return value.toString('latin1');
  const coding = (pdu.data_coding ?? 0) & 0x0f;
  // A receipt must never fail to read back: a character the library decoded outside the table becomes a space.
  if (coding === 0 || coding === 1) return encodeGsm7(value, 'space').toString('latin1');
  return value;
}

export function pickMessage(value: smpp.PduParams['short_message']): string | Buffer | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' || Buffer.isBuffer(value)) return value;
  const message = value.message;
  return message.length > 0 ? message : null;
}
