import type { DeliveryReport } from '../transports/transport.js';

/**
 * SMPP delivery receipts (deliver_sm with esm_class bit 0x04). SMPP 3.4 only gives the text layout as an
 * example (appendix B), so real SMSCs vary: key case, `done_date` vs `done date`, 10 or 12 digit dates, the
 * id also or only in the `receipted_message_id` TLV. The structured TLVs win over the text when both exist.
 */

export type ReceiptStatus = DeliveryReport['status'];

export interface ReceiptInput {
  /** short_message (or message_payload) as text; may be empty when the SMSC uses TLVs only. */
  text?: string | null;
  /** receipted_message_id TLV. */
  receiptedMessageId?: string | null;
  /** message_state TLV. */
  messageState?: number | null;
}

export interface ReceiptFields {
  id?: string;
  sub?: string;
  dlvrd?: string;
  submitDate?: string;
  doneDate?: string;
  stat?: string;
  err?: string;
  text?: string;
}

export type ReceiptParse =
  /** A final outcome to record. */
  | { kind: 'final'; report: DeliveryReport }
  /** Not an end state (ACCEPTD, ENROUTE, ...): nothing to record yet. */
  | { kind: 'pending'; providerMessageId: string; stat: string }
  /** Cannot be matched or understood; the caller logs it and moves on. */
  | { kind: 'invalid'; reason: string };

type Mapped = ReceiptStatus | 'pending';

// Keys are compared after upper-casing; the long forms are what some SMSCs write instead of the 7-letter codes.
const STAT_MAP: Readonly<Record<string, Mapped>> = {
  DELIVRD: 'DELIVERED',
  DELIVERED: 'DELIVERED',
  UNDELIV: 'UNDELIVERED',
  UNDELIVERABLE: 'UNDELIVERED',
  UNDELIVERED: 'UNDELIVERED',
  EXPIRED: 'EXPIRED',
  REJECTD: 'REJECTED',
  REJECTED: 'REJECTED',
  // A deleted message never reached the handset; the message states have no DELETED.
  DELETED: 'UNDELIVERED',
  // UNKNOWN is final in SMPP (the SMSC gave up tracking it): the handset cannot be assumed to have it.
  UNKNOWN: 'UNDELIVERED',
  ACCEPTD: 'pending',
  ACCEPTED: 'pending',
  ENROUTE: 'pending',
  SCHEDULED: 'pending',
  BUFFRED: 'pending',
};

// message_state TLV values (SMPP 3.4 §5.2.28, 5.0 adds SKIPPED).
const STATE_MAP: Readonly<Record<number, { name: string; status: Mapped }>> = {
  0: { name: 'SCHEDULED', status: 'pending' },
  1: { name: 'ENROUTE', status: 'pending' },
  2: { name: 'DELIVERED', status: 'DELIVERED' },
  3: { name: 'EXPIRED', status: 'EXPIRED' },
  4: { name: 'DELETED', status: 'UNDELIVERED' },
  5: { name: 'UNDELIVERABLE', status: 'UNDELIVERED' },
  6: { name: 'ACCEPTED', status: 'pending' },
  7: { name: 'UNKNOWN', status: 'UNDELIVERED' },
  8: { name: 'REJECTED', status: 'REJECTED' },
  9: { name: 'SKIPPED', status: 'UNDELIVERED' },
};

const FIELD_KEYS: ReadonlyArray<[RegExp, keyof ReceiptFields]> = [
  [/(?:^|\s)id:(\S*)/i, 'id'],
  [/(?:^|\s)sub:(\S*)/i, 'sub'],
  [/(?:^|\s)dlvrd:(\S*)/i, 'dlvrd'],
  [/(?:^|\s)submit[ _]date:(\d*)/i, 'submitDate'],
  [/(?:^|\s)done[ _]date:(\d*)/i, 'doneDate'],
  [/(?:^|\s)stat:(\S*)/i, 'stat'],
  [/(?:^|\s)err:(\S*)/i, 'err'],
];

/** Splits the receipt text into its fields; `text:` runs to the end because the message excerpt may contain anything. */
export function parseReceiptText(raw: string): ReceiptFields {
  const fields: ReceiptFields = {};
  let head = raw;
  const textAt = raw.search(/(?:^|\s)text:/i);
  if (textAt >= 0) {
    const rest = raw.slice(textAt);
    fields.text = rest.slice(rest.indexOf(':') + 1);
    head = raw.slice(0, textAt);
  }
  for (const [pattern, key] of FIELD_KEYS) {
    const match = pattern.exec(head);
    if (match && match[1] !== '') fields[key] = match[1];
  }
  return fields;
}

/**
 * YYMMDDhhmm[ss] read as UTC. SMPP leaves the zone of receipt dates unspecified; UTC is the usual SMSC clock and
 * the caller falls back to the arrival time when the result is implausible.
 */
export function parseReceiptDate(value: string | undefined): Date | null {
  if (!value || !/^\d{10}(\d{2})?$/.test(value)) return null;
  const n = (from: number) => Number(value.slice(from, from + 2));
  const [year, month, day, hour, minute] = [2000 + n(0), n(2), n(4), n(6), n(8)];
  const second = value.length === 12 ? n(10) : 0;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return null;
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  // Date.UTC rolls 31 February over into March; a rolled date means the input was not a real date.
  return date.getUTCDate() === day ? date : null;
}

// A receipt "done" in the future means the SMSC clock runs on another zone; a minute covers ordinary clock skew.
const FUTURE_TOLERANCE_MS = 60_000;

function describe(stat: string, err: string | undefined): string {
  return err && !/^0+$/.test(err) ? `${stat} err:${err}` : stat;
}

export function parseDeliveryReceipt(input: ReceiptInput, now: Date = new Date()): ReceiptParse {
  const fields = input.text ? parseReceiptText(input.text) : {};
  const providerMessageId = (input.receiptedMessageId || fields.id || '').trim();
  if (!providerMessageId) return { kind: 'invalid', reason: 'receipt without a message id' };

  let statName: string;
  let mapped: Mapped | undefined;
  const state = input.messageState;
  if (state !== undefined && state !== null && STATE_MAP[state]) {
    ({ name: statName, status: mapped } = STATE_MAP[state]);
  } else if (fields.stat) {
    statName = fields.stat.toUpperCase();
    mapped = STAT_MAP[statName];
  } else {
    return { kind: 'invalid', reason: `receipt for ${providerMessageId} without a stat or message_state` };
  }
  if (!mapped)
    return { kind: 'invalid', reason: `receipt for ${providerMessageId} with unknown state ${statName}` };
  if (mapped === 'pending') return { kind: 'pending', providerMessageId, stat: statName };

  const done = parseReceiptDate(fields.doneDate);
  const occurredAt = done && done.getTime() <= now.getTime() + FUTURE_TOLERANCE_MS ? done : now;
  return {
    kind: 'final',
    report: {
      providerMessageId,
      status: mapped,
      reason: mapped === 'DELIVERED' ? null : describe(statName, fields.err),
      occurredAt,
    },
  };
}
