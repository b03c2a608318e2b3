import type { IncomingHttpHeaders } from 'node:http';

/** The request presents credentials that do not name one key unambiguously. */
export class AmbiguousCredentials extends Error {}

/**
 * The three schemes: `X-API-Key: K`, `Authorization: Bearer K`, and
 * `Authorization: Basic base64(K:)` (the key as the user name, the password empty).
 * Returns undefined when no key is presented. Two schemes naming different keys, or Basic with
 * a password, throw AmbiguousCredentials: serving either reading would let a proxy or a
 * client library that adds its own header pick the account without anyone noticing.
 */
export function extractApiKey(headers: IncomingHttpHeaders): string | undefined {
  const header = headers['x-api-key'];
  const fromHeader = typeof header === 'string' && header.trim() ? header.trim() : undefined;
  const fromAuthorization = authorizationKey(headers.authorization);
  if (fromHeader && fromAuthorization && fromHeader !== fromAuthorization) {
    throw new AmbiguousCredentials('X-API-Key and Authorization carry different API keys; send one key.');
  }
  return fromHeader ?? fromAuthorization;
}

function authorizationKey(auth: string | undefined): string | undefined {
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
    if (colon >= 0 && decoded.slice(colon + 1) !== '') {
      throw new AmbiguousCredentials(
        'Basic authentication takes the API key as the user name and an empty password.',
      );
    }
    const user = (colon < 0 ? decoded : decoded.slice(0, colon)).trim();
    return user || undefined;
  }
  return undefined;
}
