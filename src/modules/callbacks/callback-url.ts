import ipaddr from 'ipaddr.js';
import { AppException } from '../../platform/errors/app.exception.js';

// 2000::/3 is the only IPv6 block handed out as global unicast; anything else (::/96 IPv4-compatible
// addresses such as ::7f00:1, 100::/64, fec0::/10, ...) is reserved, local or a translation prefix.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * True for loopback, private, link-local and every other address that is not plain public
 * unicast. IPv6 forms that embed an IPv4 address (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d,
 * NAT64, 6to4, Teredo) are refused outright: some stacks route them to the embedded address.
 */
export function isNonPublicAddress(address: string): boolean {
  let text = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(text)) return false;
  // ipaddr.js reads the compatible form ::a.b.c.d as the mapped ::ffff:a.b.c.d; the URL parser's
  // canonical spelling (::808:808) keeps the two apart.
  if (text.includes(':') && text.includes('.')) {
    try {
      text = new URL(`http://[${text}]`).hostname.slice(1, -1);
    } catch {
      return true;
    }
  }
  let parsed = ipaddr.parse(text);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  if (parsed.range() !== 'unicast') return true;
  return parsed.kind() === 'ipv6' && !(parsed as ipaddr.IPv6).match(GLOBAL_UNICAST_V6);
}

/** True when the host part of a URL (brackets included for IPv6) is an IP address rather than a name. */
export function isIpLiteral(hostname: string): boolean {
  return ipaddr.isValid(hostname.replace(/^\[|\]$/g, ''));
}

// C0 and C1 controls, DEL, and the Unicode line and paragraph separators.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * Refuses callback URLs we would never deliver to: only http(s), and no literal
 * loopback/private/link-local address unless private networks are allowed, and only
 * https when `httpsOnly` (CALLBACK_HTTPS_ONLY; delivery enforces it too, for URLs stored before).
 * Host names are checked again after DNS at delivery time.
 */
export function checkCallbackUrl(
  url: string,
  allowPrivate: boolean,
  httpsOnly = false,
  field = 'callback_url',
): string {
  const fail = (why: string) =>
    new AppException('INVALID_CALLBACK_URL', `${field} ${why}.`, [{ field, message: why }]);
  if (url.length > 2048) throw fail('is longer than 2048 characters');
  // The URL parser silently drops tabs and newlines; refuse them rather than store a different URL.
  if (CONTROL.test(url)) throw fail('must not contain control characters');
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
    // Named so a developer testing against a local receiver finds the switch.
    throw fail(
      'points to a private, loopback or link-local address; set CALLBACK_ALLOW_PRIVATE_NETWORKS=true on the server to allow it (local testing)',
    );
  }
  return u.toString();
}
