import { describe, expect, it } from 'vitest';
import { formatSender, parseSender } from './email-sender.js';

describe('parseSender', () => {
  it.each([
    ['news@ACME.example', { name: null, address: 'news@acme.example' }],
    ['ACME News <news@acme.example>', { name: 'ACME News', address: 'news@acme.example' }],
    ['"ACME, Inc." <news@acme.example>', { name: 'ACME, Inc.', address: 'news@acme.example' }],
    ['"Say \\"hi\\"" <news@acme.example>', { name: 'Say "hi"', address: 'news@acme.example' }],
    ['<news@acme.example>', { name: null, address: 'news@acme.example' }],
  ])('reads %j', (raw, parsed) => {
    expect(parseSender(raw)).toEqual(parsed);
  });

  it.each([
    'ACME\r\n <news@acme.example>',
    'ACME <news@acme.example>\nBcc: x@evil.example',
    'A\u0000B <news@acme.example>',
    'ACME <news@acme.example',
    'ACME <a@acme.example> <b@acme.example>',
    'a@acme.example, b@acme.example',
    '"unclosed <news@acme.example>',
    '"a"b" <news@acme.example>',
    'ACME <not-an-address>',
    `${'n'.repeat(129)} <news@acme.example>`,
    'ACME',
  ])('refuses %j', (raw) => {
    expect(parseSender(raw)).toBeNull();
  });

  it('formats back to a form it reads the same way, quoting only where RFC 5322 needs it', () => {
    for (const sender of [
      { name: 'ACME News', address: 'news@acme.example' },
      { name: 'ACME, Inc.', address: 'news@acme.example' },
      { name: 'Say "hi"', address: 'news@acme.example' },
      { name: null, address: 'news@acme.example' },
    ]) {
      expect(parseSender(formatSender(sender))).toEqual(sender);
    }
    expect(formatSender({ name: 'ACME News', address: 'news@acme.example' })).toBe(
      'ACME News <news@acme.example>',
    );
    expect(formatSender({ name: 'ACME, Inc.', address: 'news@acme.example' })).toBe(
      '"ACME, Inc." <news@acme.example>',
    );
  });
});
