import { randomInt, timingSafeEqual } from 'node:crypto';
import { keyedDigest } from '../../platform/crypto/keyed-digest.js';

/** What a code's message shows in its stored text once it has been handed over. */
export const CODE_MASK = '******';
/** The placeholder a verification's text must hold. */
export const CODE_PLACEHOLDER = '{{code}}';

/** `length` random decimal digits (leading zeros kept), from the operating system's CSPRNG. */
export function newCode(length: number): string {
  let code = '';
  for (let i = 0; i < length; i++) code += String(randomInt(10));
  return code;
}

/**
 * The only form of a code that is stored: HMAC-SHA-256 under SERVER_SECRET, bound to its
 * verification, so a 6-digit code cannot be found from the table by trying the million
 * candidates without the key, and one verification's digest says nothing of another's.
 */
export function codeDigest(secret: string, verificationId: string, code: string): Buffer {
  return keyedDigest(secret, 'verification-code', `${verificationId}\n${code}`);
}

/** Compares two digests in constant time: how much of a guess matched never shows in the timing. */
export function sameDigest(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
