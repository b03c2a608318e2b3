import type { IncomingHttpHeaders } from 'node:http';

/**
 * The three schemes: `X-API-Key: K`, `Authorization: Bearer K`, and
 * `Authorization: Basic base64(K:)` (the key as the user name, the password empty).
 * Returns undefined when no key is presented.
 */
export function extractApiKey(headers: IncomingHttpHeaders): string | undefined {
  const header = headers['x-api-key'];
  if (typeof header === 'string' && header.trim()) return header.trim();
  const auth = headers.authorization;
  if (typeof auth !== 'string') return undefined;
  const space = auth.indexOf(' ');
  if (space < 0) return undefined;
  const scheme = auth.slice(0, space).toLowerCase();
  const value = auth.slice(space + 1).trim();
  if (!value) return undefined;
  if (scheme === 'bearer') return value;
  if (scheme === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const user = (colon < 0 ? decoded : decoded.slice(0, colon)).trim();
    return user || undefined;
  }
  return undefined;
}
