import { describe, expect, it } from 'vitest';
import { IpAllowList, displayAddress } from './ip-allow-list.js';

const allows = (entries: string[], ip: string) => IpAllowList.from(entries)!.allows(ip);

describe('IpAllowList', () => {
  it('is absent for no list or an empty one (any address)', () => {
    expect(IpAllowList.from(null)).toBeNull();
    expect(IpAllowList.from([])).toBeNull();
  });

  it('matches an exact IPv4 address and nothing next to it', () => {
    expect(allows(['192.0.2.7'], '192.0.2.7')).toBe(true);
    expect(allows(['192.0.2.7'], '192.0.2.8')).toBe(false);
  });

  it('matches an IPv4 CIDR range at its edges and not outside', () => {
    expect(allows(['10.0.0.0/8'], '10.0.0.0')).toBe(true);
    expect(allows(['10.0.0.0/8'], '10.255.255.255')).toBe(true);
    expect(allows(['10.0.0.0/8'], '11.0.0.0')).toBe(false);
  });

  it('matches IPv6 addresses and ranges, whatever their spelling', () => {
    expect(allows(['::1'], '0:0:0:0:0:0:0:1')).toBe(true);
    expect(allows(['2001:db8::/32'], '2001:db8:ffff::1')).toBe(true);
    expect(allows(['2001:db8::/32'], '2001:db9::1')).toBe(false);
  });

  it('treats an IPv4-mapped IPv6 client as its IPv4 address, and a mapped entry as IPv4', () => {
    expect(allows(['127.0.0.1'], '::ffff:127.0.0.1')).toBe(true);
    expect(allows(['127.0.0.0/8'], '::ffff:127.9.9.9')).toBe(true);
    expect(allows(['::ffff:127.0.0.1'], '127.0.0.1')).toBe(true);
    expect(allows(['::ffff:10.0.0.0/104'], '10.1.2.3')).toBe(true);
    expect(allows(['::ffff:0:0/96'], '198.51.100.1')).toBe(true);
  });

  it('does not let an IPv4 entry admit an IPv6 client or the reverse', () => {
    expect(allows(['127.0.0.1'], '::1')).toBe(false);
    expect(allows(['::1'], '127.0.0.1')).toBe(false);
  });

  it('refuses a missing or unreadable client address, and an entry that does not parse matches nothing', () => {
    expect(allows(['0.0.0.0/0'], '')).toBe(false);
    expect(allows(['0.0.0.0/0'], 'not-an-ip')).toBe(false);
    const list = IpAllowList.from(['bogus', '192.0.2.1'])!;
    expect(list.invalid).toEqual(['bogus']);
    expect(list.allows('192.0.2.1')).toBe(true);
    expect(IpAllowList.from(['bogus'])!.allows('192.0.2.1')).toBe(false);
  });

  it('displays a mapped address as IPv4', () => {
    expect(displayAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(displayAddress('::1')).toBe('::1');
    expect(displayAddress(undefined)).toBeNull();
  });
});
