import { createHmac, timingSafeEqual } from 'node:crypto';

/** v1 = hex HMAC-SHA256(secret, timestamp + "." + raw body). */
export function signCallback(secret: string, timestamp: number, rawBody: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`;
}

/** For receivers (and our tests): checks the signature and that the timestamp is recent. */
export function verifyCallback(
  secret: string,
  timestampHeader: string,
  signatureHeader: string,
  rawBody: string,
  toleranceSeconds = 300,
): boolean {
  const ts = Number(timestampHeader);
  if (!Number.isInteger(ts) || Math.abs(Date.now() / 1000 - ts) > toleranceSeconds) return false;
  const expected = Buffer.from(signCallback(secret, ts, rawBody));
  const given = Buffer.from(signatureHeader);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
