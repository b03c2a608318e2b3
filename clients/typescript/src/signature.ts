import { createHmac, timingSafeEqual } from 'node:crypto';

export interface SignedCallback {
  /** The account's callback secret (`accounts callback-secret`), as text. */
  secret: string;
  /** The `X-Signature-Timestamp` header: Unix seconds. */
  timestamp: string | number | null | undefined;
  /** The `X-Signature` header: `v1=` and a hex HMAC-SHA256. */
  signature: string | null | undefined;
  /** The body exactly as received, before any JSON parsing (a re-serialised body does not match). */
  rawBody: string | Uint8Array;
  /** How far the timestamp may be from this clock, in seconds (default 300), so a captured request cannot be replayed later. */
  toleranceSeconds?: number;
  /** The clock, in Unix seconds; now by default. */
  nowSeconds?: number;
}

/**
 * True when a callback is the service's: `X-Signature` is `v1=` + hex HMAC-SHA256(secret,
 * timestamp + "." + raw body), compared in constant time, and the timestamp is recent. The
 * event's `event_id` should still be de-duplicated: a retry carries the same one.
 */
export function verifySignature(callback: SignedCallback): boolean {
  const { secret, rawBody, toleranceSeconds = 300 } = callback;
  const timestamp = String(callback.timestamp ?? '').trim();
  if (!/^\d+$/.test(timestamp)) return false;
  const now = callback.nowSeconds ?? Date.now() / 1000;
  if (Math.abs(now - Number(timestamp)) > toleranceSeconds) return false;
  const hmac = createHmac('sha256', secret).update(`${timestamp}.`);
  hmac.update(
    typeof rawBody === 'string'
      ? rawBody
      : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength),
  );
  const expected = Buffer.from(`v1=${hmac.digest('hex')}`);
  const given = Buffer.from(String(callback.signature ?? ''));
  return expected.length === given.length && timingSafeEqual(expected, given);
}
