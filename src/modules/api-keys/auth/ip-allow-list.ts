import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Address, number];

/**
 * An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, what a dual-stack listener reports for an
 * IPv4 client) is the IPv4 address: both the allow list and the client are compared as IPv4.
 */
function unmap(addr: Address): Address {
  return addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()
    ? (addr as ipaddr.IPv6).toIPv4Address()
    : addr;
}

function parseEntry(entry: string): Range | null {
  const text = entry.trim();
  try {
    if (text.includes('/')) {
      const [addr, bits] = ipaddr.parseCIDR(text);
      // ::ffff:10.0.0.0/104 is 10.0.0.0/8.
      if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
        return [(addr as ipaddr.IPv6).toIPv4Address(), bits - 96];
      }
      return [addr, bits];
    }
    const addr = unmap(ipaddr.parse(text));
    return [addr, addr.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return null;
  }
}

/** The client address as express reports it (`req.ip`), or null when it is missing or unreadable. */
export function parseClientAddress(ip: string | undefined): Address | null {
  if (!ip) return null;
  try {
    return unmap(ipaddr.parse(ip));
  } catch {
    return null;
  }
}

/** Addresses recently shown, by what express reported: clients are few, requests many. */
const shown = new Map<string, string>();
const SHOWN_MAX = 1024;

/** For messages and logs: `::ffff:127.0.0.1` is written 127.0.0.1; anything unreadable as given. */
export function displayAddress(ip: string | undefined): string | null {
  if (!ip) return null;
  let text = shown.get(ip);
  if (text === undefined) {
    text = parseClientAddress(ip)?.toString() ?? ip;
    if (shown.size >= SHOWN_MAX) shown.clear();
    shown.set(ip, text);
  }
  return text;
}

/**
 * A key's allow list, parsed once when the key is loaded (and cached with it) so a request only
 * does the comparisons. Entries were validated by the CLI; one that does not parse (edited in
 * the database by hand) matches nothing, so a broken list refuses rather than admits.
 */
export class IpAllowList {
  private constructor(
    private readonly ranges: Range[],
    readonly invalid: string[],
  ) {}

  /** null for no list (or an empty one): the key is accepted from anywhere. */
  static from(entries: readonly string[] | null | undefined): IpAllowList | null {
    if (!entries || entries.length === 0) return null;
    const ranges: Range[] = [];
    const invalid: string[] = [];
    for (const e of entries) {
      const r = typeof e === 'string' ? parseEntry(e) : null;
      if (r) ranges.push(r);
      else invalid.push(String(e));
    }
    return new IpAllowList(ranges, invalid);
  }

  allows(ip: string | undefined): boolean {
    const addr = parseClientAddress(ip);
    if (!addr) return false;
    for (const [range, bits] of this.ranges) {
      if (addr.kind() === range.kind()) {
        if ((addr as ipaddr.IPv4).match(range as ipaddr.IPv4, bits)) return true;
      } else if (addr.kind() === 'ipv4') {
        // An IPv6 range written to cover IPv4 clients (::ffff:0:0/96, ::/0).
        if ((addr as ipaddr.IPv4).toIPv4MappedAddress().match(range as ipaddr.IPv6, bits)) return true;
      }
    }
    return false;
  }
}
