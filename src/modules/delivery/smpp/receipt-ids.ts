/**
 * Matching a receipt's message id to the id an SMSC gave in submit_sm_resp. SMSCs differ in how they write the
 * same id: many answer submit_sm_resp in hexadecimal and write the receipt in decimal, some pad with zeros, some
 * change letter case. Each id is reduced to numeric keys (as text, so 128-bit ids fit), stored beside the raw id
 * and compared by the configured format:
 * - `string`: the receipt repeats the id exactly;
 * - `hex`: the receipt gives the same number in the same base (letter case and leading zeros aside), which also
 *   fits SMSCs writing decimal ids in both places with different zero-padding;
 * - `decimal`: the receipt gives in decimal the number submit_sm_resp gave in hexadecimal;
 * - `auto`: any of these, the closest form winning when a receipt could match more than one id.
 */

export type ReceiptIdFormat = 'auto' | 'hex' | 'decimal' | 'string';

export interface IdKeys {
  raw: string;
  /** The id read as a hexadecimal number, in decimal; null when it is not one. */
  hex: string | null;
  /** The id read as a decimal number, without leading zeros; null when it is not one. */
  dec: string | null;
}

// 32 hexadecimal digits (128 bits) is 39 decimal digits: the key columns hold 40.
const MAX_HEX_DIGITS = 32;
const MAX_DEC_DIGITS = 39;

export function idKeys(id: string): IdKeys {
  const raw = id.trim();
  const hex =
    /^[0-9a-f]+$/i.test(raw) && raw.replace(/^0+/, '').length <= MAX_HEX_DIGITS
      ? BigInt(`0x${raw}`).toString()
      : null;
  const dec =
    /^\d+$/.test(raw) && raw.replace(/^0+/, '').length <= MAX_DEC_DIGITS ? BigInt(raw).toString() : null;
  return { raw, hex, dec };
}

/**
 * How closely a receipt id matches a submit id under `format`: 0 exact, 1 same number and base, 2 hexadecimal
 * submit id written in decimal; null when it does not match at all.
 */
export function matchRank(format: ReceiptIdFormat, submitId: string, receiptId: string): number | null {
  const s = idKeys(submitId);
  const r = idKeys(receiptId);
  const exact = s.raw !== '' && s.raw === r.raw;
  const sameNumber = s.hex !== null && s.hex === r.hex;
  const fromHex = s.hex !== null && s.hex === r.dec;
  switch (format) {
    case 'string':
      return exact ? 0 : null;
    case 'hex':
      return exact ? 0 : sameNumber ? 1 : null;
    case 'decimal':
      return exact ? 0 : fromHex ? 2 : null;
    default:
      return exact ? 0 : sameNumber ? 1 : fromHex ? 2 : null;
  }
}

/** The stored submit-side keys (message_parts.id_value) a receipt id may match under `format`. */
export function submitKeysFor(format: ReceiptIdFormat, receiptId: string): string[] {
  const r = idKeys(receiptId);
  const keys =
    format === 'hex' ? [r.hex] : format === 'decimal' ? [r.dec] : format === 'auto' ? [r.hex, r.dec] : [];
  return [...new Set(keys.filter((k): k is string => k !== null))];
}
