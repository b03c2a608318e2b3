import { createHmac } from 'node:crypto';

/**
 * HMAC-SHA-256 of `text` under the server's secret, for one `purpose`. What the service stores to
 * recognise something again (a request's body, a recipient) is digested this way rather than by
 * a plain hash: a phone number or a short body is found from its plain SHA-256 by trying
 * candidates, from a keyed one only with the key. The purpose keeps the digests of different
 * uses apart, so one can never stand for another.
 */
export function keyedDigest(secret: string, purpose: string, text: string): Buffer {
  return createHmac('sha256', secret).update(purpose).update('\n').update(text).digest();
}
