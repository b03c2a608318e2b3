import { hash, randomBytes } from 'node:crypto';

const KEY_PREFIX = 'bmk_';
/** A test key says so in its first characters, so it is told apart at a glance (in code, in logs). */
const TEST_KEY_PREFIX = 'bmk_test_';

/** 256 random bits, URL-safe; shown once. */
export function generateApiKey(mode: 'live' | 'test' = 'live'): string {
  return (mode === 'test' ? TEST_KEY_PREFIX : KEY_PREFIX) + randomBytes(32).toString('base64url');
}

const KEY_SHAPE = /^bmk_(?:test_)?[A-Za-z0-9_-]{43}$/;

/** Whether a presented key could have come from generateApiKey: anything else is unknown without a lookup. */
export function hasKeyShape(presented: string): boolean {
  return KEY_SHAPE.test(presented);
}

/** SHA-256 of the key, one shot (every authenticated request hashes the key it presents). */
export function hashApiKey(key: string): Buffer {
  return hash('sha256', key, 'buffer');
}

/** The key's first characters, enough to tell keys apart: a test key's longer marker is not counted against it. */
export function displayPrefix(key: string): string {
  return key.slice(0, key.startsWith(TEST_KEY_PREFIX) ? 16 : 12);
}
