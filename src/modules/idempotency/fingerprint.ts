import { keyedDigest } from '../../platform/crypto/keyed-digest.js';
import { canonicalJson } from './canonical-json.js';

/** A field that never counts towards "the same request", at any depth: a retry may carry a new password. */
const PASSWORD = /^password$/i;

/** The body without its passwords, so that none reaches a digest. */
function withoutPasswords(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutPasswords);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([k]) => !PASSWORD.test(k))
      .map(([k, v]) => [k, withoutPasswords(v)]),
  );
}

/**
 * What "the same request" means: method, path and body (JSON keys in any order, passwords left
 * out), digested with the server's secret (SERVER_SECRET), so the stored fingerprint of a short
 * body cannot be matched by hashing guesses.
 */
export function idempotencyFingerprint(secret: string, method: string, url: string, body: unknown): Buffer {
  const text = typeof body === 'string' ? body : canonicalJson(withoutPasswords(body ?? null));
  return keyedDigest(secret, 'idempotency-fingerprint', `${method} ${url}\n${text}`);
}
