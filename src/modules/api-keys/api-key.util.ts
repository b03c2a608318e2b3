import { createHash, randomBytes } from 'node:crypto';

const KEY_PREFIX = 'bmk_';

/** 256 random bits, URL-safe; shown once. */
export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

export function displayPrefix(key: string): string {
  return key.slice(0, 12);
}
