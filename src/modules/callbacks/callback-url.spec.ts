import { describe, expect, it } from 'vitest';
import { checkCallbackUrl, isNonPublicAddress } from './callback-url.js';

const refused = (url: string) => () => checkCallbackUrl(url, false);

describe('isNonPublicAddress', () => {
  it('refuses loopback, private, link-local and unspecified addresses of both families', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
    ])
      expect(isNonPublicAddress(a), a).toBe(true);
  });

  it('refuses IPv6 forms that embed an IPv4 address: mapped, compatible (::/96), NAT64, 6to4, Teredo', () => {
    for (const a of [
      '::ffff:127.0.0.1',
      '::127.0.0.1',
      '::7f00:1',
      '::a00:1',
      '::8.8.8.8',
      '64:ff9b::7f00:1',
      '2002:7f00:1::',
      '2001::1',
    ])
      expect(isNonPublicAddress(a), a).toBe(true);
  });

  it('refuses IPv6 outside global unicast (2000::/3) and documentation ranges', () => {
    for (const a of ['100::1', 'fec0::1', '2001:db8::1', '4000::1'])
      expect(isNonPublicAddress(a), a).toBe(true);
  });

  it('accepts public addresses, bracketed or not, and says nothing about names', () => {
    for (const a of ['8.8.8.8', '2001:4860:4860::8888', '[2001:4860:4860::8888]'])
      expect(isNonPublicAddress(a), a).toBe(false);
    expect(isNonPublicAddress('example.com')).toBe(false);
  });
});

describe('checkCallbackUrl', () => {
  it('refuses the IPv4-compatible spellings of loopback at request time', () => {
    expect(refused('http://[::127.0.0.1]/hook')).toThrow(/private, loopback or link-local/);
    expect(refused('http://[::7f00:1]:8080/hook')).toThrow(/private, loopback or link-local/);
    expect(refused('http://[::ffff:7f00:1]/hook')).toThrow(/private, loopback or link-local/);
  });

  it('refuses decimal and hexadecimal spellings of loopback, which the URL parser turns into 127.0.0.1', () => {
    expect(refused('http://2130706433/hook')).toThrow(/private/);
    expect(refused('http://0x7f.1/hook')).toThrow(/private/);
  });

  it('refuses control characters the URL parser would silently drop', () => {
    expect(refused('https://example.com/a\r\nX-Injected: 1')).toThrow(/control characters/);
    expect(refused('https://exam\tple.com/')).toThrow(/control characters/);
  });

  it('names the setting that allows a loopback target, for local testing', () => {
    expect(refused('http://127.0.0.1:8080/hook')).toThrow(
      /private, loopback or link-local address; set CALLBACK_ALLOW_PRIVATE_NETWORKS=true/,
    );
  });

  it('accepts a public URL, and a private one when private networks are allowed', () => {
    expect(checkCallbackUrl('https://hooks.example.com/dlr?x=1', false)).toBe(
      'https://hooks.example.com/dlr?x=1',
    );
    expect(checkCallbackUrl('http://[::7f00:1]/hook', true)).toBe('http://[::7f00:1]/hook');
  });
});
