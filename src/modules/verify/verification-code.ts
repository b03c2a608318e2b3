import { randomInt } from 'node:crypto';
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
 * Nor does the time a comparison of two digests takes (the check compares them in MariaDB):
 * without the key no one can tell which codes have digests that begin as the stored one does,
 * so how far two digests agree says nothing about which code is right.
 */
export function codeDigest(secret: string, verificationId: string, code: string): Buffer {
  return keyedDigest(secret, 'verification-code', `${verificationId}\n${code}`);
}
