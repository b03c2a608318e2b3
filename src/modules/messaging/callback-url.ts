import ipaddr from 'ipaddr.js';
import { AppException } from '../../common/errors/app.exception.js';

/** True for loopback, private, link-local and other non-public ranges. */
export function isNonPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed.range() !== 'unicast';
}

/**
 * Refuses callback URLs we would never deliver to: only http(s), and no
 * literal loopback/private/link-local address unless private networks are allowed, and only
 * https when `httpsOnly` (CALLBACK_HTTPS_ONLY; delivery enforces it too, for URLs stored before).
 * Host names are checked again after DNS at delivery time.
 */
export function checkCallbackUrl(url: string, allowPrivate: boolean, httpsOnly = false): string {
  const fail = (why: string) =>
    new AppException('INVALID_CALLBACK_URL', `callback_url ${why}.`, [{ field: 'callback_url', message: why }]);
  if (url.length > 2048) throw fail('is longer than 2048 characters');
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw fail('is not a valid URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw fail('must use http or https');
  if (httpsOnly && u.protocol !== 'https:') throw fail('must use https');
  if (u.username || u.password) throw fail('must not carry credentials');
  // A fully qualified name may end in a dot: `localhost.` is still localhost.
  const host = u.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (!allowPrivate && (host === 'localhost' || host.endsWith('.localhost') || isNonPublicAddress(host))) {
    throw fail('points to a private, loopback or link-local address');
  }
  return u.toString();
}
