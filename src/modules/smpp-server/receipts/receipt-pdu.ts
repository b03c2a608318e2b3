import type { MessageStatus } from '../../messages/channel.js';

/** What a receipt says of a final state: the DLR's stat, the message_state TLV (SMPP 3.4 §5.2.28), err. */
interface FinalState {
  stat: 'DELIVRD' | 'UNDELIV' | 'EXPIRED' | 'REJECTD' | 'DELETED';
  state: number;
  err: string;
}

/**
 * Our final states as SMPP receipts say them. FAILED (never handed to an operator after its
 * retries) is UNDELIV to the client, as an SMSC says of a message it could not get through; the
 * err field tells the two apart, and REJECTED (ours or the operator's) from CANCELLED.
 */
const FINAL: Partial<Record<MessageStatus, FinalState>> = {
  DELIVERED: { stat: 'DELIVRD', state: 2, err: '000' },
  UNDELIVERED: { stat: 'UNDELIV', state: 5, err: '001' },
  FAILED: { stat: 'UNDELIV', state: 5, err: '002' },
  EXPIRED: { stat: 'EXPIRED', state: 3, err: '003' },
  REJECTED: { stat: 'REJECTD', state: 8, err: '004' },
  CANCELLED: { stat: 'DELETED', state: 4, err: '005' },
};

/** registered_delivery & 0x03: 1 asks for a receipt of every final state, 2 for failures only. */
export function wantsReceipt(registeredDelivery: number | null | undefined, status: MessageStatus): boolean {
  if (!FINAL[status]) return false;
  if (registeredDelivery === 1) return true;
  return registeredDelivery === 2 && status !== 'DELIVERED';
}

/** A deliver_sm waiting in the outbox: a receipt of a message submitted over SMPP, or an inbound SMS. */
export type OutboxPdu =
  | {
      kind: 'receipt';
      /** The recipient of the message (the receipt comes from it) and its sender (the receipt goes to it). */
      source: string;
      destination: string;
      messageId: string;
      stat: FinalState['stat'];
      state: number;
      text: string;
    }
  | { kind: 'inbound'; source: string; destination: string; text: string };

/** An inbound SMS as its deliver_sm: from the handset to the account's number. */
export function inboundPdu(from: string, to: string, text: string): OutboxPdu {
  return { kind: 'inbound', source: from, destination: to, text };
}

export interface ReceiptOf {
  messageId: string;
  status: MessageStatus;
  recipient: string;
  sender: string;
  submittedAt: Date;
  doneAt: Date;
  /** The message's text (its first 20 characters go into the receipt). */
  text: string;
}

const two = (n: number) => String(n).padStart(2, '0');

/** yyMMddHHmm in UTC, the receipt's date form. */
export function receiptDate(d: Date): string {
  return `${two(d.getUTCFullYear() % 100)}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}${two(d.getUTCHours())}${two(d.getUTCMinutes())}`;
}

/**
 * Characters that are the same byte in ASCII and in the GSM 03.38 default alphabet. A receipt
 * goes with data_coding 0, which clients read either way (Kannel as GSM, most parsers as ASCII);
 * anything else in the quoted text becomes '?' so that both read the same receipt.
 */
const NEUTRAL = /[^ !"#%&'()*+,\-./0-9:;<=>?A-Za-z]/g;

export function receiptText(r: ReceiptOf): string {
  const f = FINAL[r.status]!;
  const quoted = [...r.text].slice(0, 20).join('').replace(NEUTRAL, '?');
  return (
    `id:${r.messageId} sub:001 dlvrd:${f.stat === 'DELIVRD' ? '001' : '000'} ` +
    `submit date:${receiptDate(r.submittedAt)} done date:${receiptDate(r.doneAt)} ` +
    `stat:${f.stat} err:${f.err} text:${quoted}`
  );
}

export function receiptPdu(r: ReceiptOf): OutboxPdu {
  const f = FINAL[r.status]!;
  return {
    kind: 'receipt',
    source: r.recipient,
    destination: r.sender,
    messageId: r.messageId,
    stat: f.stat,
    state: f.state,
    text: receiptText(r),
  };
}

/** A number as our stores keep it (bare digits) is international; anything else alphanumeric. */
function ton(address: string): { ton: number; npi: number } {
  return /^\d+$/.test(address) ? { ton: 1, npi: 1 } : { ton: 5, npi: 0 };
}

/** GSM 03.38 basic and extension characters: such a text goes as data_coding 0, else as UCS-2. */
const GSM = /^[@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&'()*+,\-./0-9:;<=>?¡A-ZÄÖÑÜ§¿a-zäöñüà\f^{}\\[~\]|€]*$/;
/** Characters of the extension table: two septets each (an escape, then the character). */
const GSM_EXTENSION = '\f^{}\\[~]|€';
/** Past this many bytes the text goes in the message_payload TLV (short_message holds 254). */
const SHORT_MESSAGE_MAX = 254;

/** The deliver_sm fields (as the `smpp` package takes them) for what waits in the outbox. */
export function deliverSmFields(pdu: OutboxPdu): Record<string, unknown> {
  const src = ton(pdu.source);
  const dst = ton(pdu.destination);
  const addresses = {
    source_addr_ton: src.ton,
    source_addr_npi: src.npi,
    source_addr: pdu.source,
    dest_addr_ton: dst.ton,
    dest_addr_npi: dst.npi,
    destination_addr: pdu.destination,
  };
  if (pdu.kind === 'receipt')
    return {
      ...addresses,
      esm_class: 0x04,
      data_coding: 0,
      short_message: Buffer.from(pdu.text, 'ascii'),
      receipted_message_id: pdu.messageId,
      message_state: pdu.state,
    };
  // data_coding 0 is the GSM default alphabet, which the package encodes itself; UCS-2 otherwise.
  const gsm = GSM.test(pdu.text);
  const bytes = gsm ? null : Buffer.from(pdu.text, 'utf16le').swap16();
  const size = bytes
    ? bytes.length
    : [...pdu.text].reduce((n, c) => n + (GSM_EXTENSION.includes(c) ? 2 : 1), 0);
  const body = bytes ?? pdu.text;
  return {
    ...addresses,
    esm_class: 0,
    data_coding: gsm ? 0 : 8,
    ...(size > SHORT_MESSAGE_MAX ? { message_payload: body } : { short_message: body }),
  };
}
