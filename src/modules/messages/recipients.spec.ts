import { describe, expect, it } from 'vitest';
import { normaliseEmail, normalisePhone } from './recipients.js';

describe('normalisePhone', () => {
  it.each([
    ['+260 97-123.4567', '260971234567'],
    ['00260971234567', '260971234567'],
    ['260971234567', '260971234567'],
    ['+260971234567', '260971234567'],
    ['+1 (415) 555-2671', '14155552671'],
    ['(+44) 20 7946 0958', '442079460958'],
    ['0044 20 7946 0958', '442079460958'],
    ['  +260 971 234 567  ', '260971234567'],
    ['+260\t971\u00a0234567', '260971234567'],
    ['12345678', '12345678'], // 8 digits, the minimum
    ['123456789012345', '123456789012345'], // 15 digits, the E.164 maximum
    ['+123456789012345', '123456789012345'],
    ['00123456789012345', '123456789012345'], // 00 stripped before the length check
    ['1.2.3.4.5.6.7.8', '12345678'],
  ])('accepts %j as %s', (raw, value) => {
    expect(normalisePhone(raw)).toEqual({ ok: true, value });
  });

  it.each([
    ['national number with trunk 0', '0971234567'],
    ['letters', '26097abc'],
    ['empty', ''],
    ['only separators', ' -.() '],
    ['only a plus', '+'],
    ['only 00', '00'],
    ['16 digits', '1234567890123456'],
    ['16 digits after +', '+1234567890123456'],
    ['7 digits', '1234567'],
    ['double plus', '++260971234567'],
    ['plus then 00', '+00260971234567'],
    ['0000 prefix', '0000260971234567'],
    ['00 then plus', '00+260971234567'],
    ['plus in the middle', '260+971234567'],
    ['trailing plus', '260971234567+'],
    ['slash separator', '260/971234567'],
    ['underscore', '260_971_234_567'],
    ['extension suffix', '+260971234567 ext 12'],
    ['Arabic-Indic digits', '\u0662\u0666\u0660\u0669\u0667\u0661\u0662\u0663\u0664\u0665\u0666\u0667'],
    ['full-width digits', '\uff12\uff16\uff10\uff19\uff17\uff11\uff12\uff13\uff14\uff15\uff16\uff17'],
    ['negative-looking', '-260971234567x'],
    ['e-notation', '2.6e11'],
  ])('rejects %s', (_name, raw) => {
    expect(normalisePhone(raw)).toEqual({ ok: false, reason: 'INVALID_NUMBER' });
  });

  it.each([
    ['number', 260971234567],
    ['null', null],
    ['undefined', undefined],
    ['object', { phone: '260971234567' }],
    ['array', ['260971234567']],
    ['boolean', true],
  ])('rejects non-string input (%s)', (_name, raw) => {
    expect(normalisePhone(raw as unknown as string)).toEqual({ ok: false, reason: 'INVALID_NUMBER' });
  });
});

describe('normaliseEmail', () => {
  const local64 = 'x'.repeat(64);
  const domain189 = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(57)}.com`;
  const email254 = `${local64}@${domain189}`;
  const email255 = `${local64}@${domain189.replace('c.com', 'cc.com')}`;

  it('builds the length fixtures at the intended sizes', () => {
    expect(email254).toHaveLength(254);
    expect(email255).toHaveLength(255);
  });

  it.each([
    ['user@example.com', 'user@example.com'],
    ['  user@example.com\n', 'user@example.com'],
    ['User@Example.COM', 'User@example.com'],
    ['John.Smith@EXAMPLE.co.zm', 'John.Smith@example.co.zm'],
    ['first.last+tag@sub.example.org', 'first.last+tag@sub.example.org'],
    ["o'brien@example.ie", "o'brien@example.ie"],
    ['"a@b"@Example.com', '"a@b"@example.com'],
    ['"john smith"@example.com', '"john smith"@example.com'],
    ['a@b.co', 'a@b.co'],
    ['a@B\u00dcCHER.DE', 'a@b\u00fccher.de'],
    ['\u00d1o\u00f1o@example.com', '\u00d1o\u00f1o@example.com'],
    [email254, email254],
  ])('accepts %j as %j', (raw, value) => {
    expect(normaliseEmail(raw)).toEqual({ ok: true, value });
  });

  it.each([
    ['empty', ''],
    ['whitespace only', '   '],
    ['no at sign', 'user.example.com'],
    ['no local part', '@example.com'],
    ['no domain', 'user@'],
    ['double at', 'user@@example.com'],
    ['no TLD', 'user@localhost'],
    ['one-letter TLD', 'user@example.c'],
    ['numeric TLD', 'user@example.123'],
    ['IP literal', 'user@[192.168.0.1]'],
    ['bare IP', 'user@192.168.0.1'],
    ['display name', 'John Smith <john@example.com>'],
    ['angle brackets only', '<john@example.com>'],
    ['space in local part', 'john smith@example.com'],
    ['consecutive dots', 'john..smith@example.com'],
    ['leading dot', '.john@example.com'],
    ['trailing dot in local part', 'john.@example.com'],
    ['empty domain label', 'john@example..com'],
    ['trailing dot in domain', 'john@example.com.'],
    ['hyphen-led label', 'john@-example.com'],
    ['underscore in domain', 'john@ex_ample.com'],
    ['two addresses', 'a@example.com,b@example.com'],
    ['65-char local part', `${'x'.repeat(65)}@example.com`],
    ['255 characters', email255],
  ])('rejects %s', (_name, raw) => {
    expect(normaliseEmail(raw)).toEqual({ ok: false, reason: 'INVALID_EMAIL' });
  });

  it.each([
    ['number', 42],
    ['null', null],
    ['undefined', undefined],
    ['object', { email: 'user@example.com' }],
    ['array', ['user@example.com']],
  ])('rejects non-string input (%s)', (_name, raw) => {
    expect(normaliseEmail(raw as unknown as string)).toEqual({ ok: false, reason: 'INVALID_EMAIL' });
  });

  it.each([
    ['in the local part', 'a\udc00@example.com'],
    ['in the domain', 'x@\ud800.com'],
    ['in a quoted local part', '"\udc00"@example.com'],
  ])('rejects an unpaired surrogate %s instead of throwing', (_name, raw) => {
    expect(normaliseEmail(raw)).toEqual({ ok: false, reason: 'INVALID_EMAIL' });
  });

  it.each([
    ['CR LF in a quoted local part', '"a\r\nb"@example.com'],
    ['a bare LF in a quoted local part', '"a\nBcc: x@evil.example"@example.com'],
    ['a NUL', '"a\u0000b"@example.com'],
    ['a tab', '"a\tb"@example.com'],
    ['DEL', '"a\u007fb"@example.com'],
    ['a C1 control (NEL)', '"a\u0085b"@example.com'],
    ['a line separator', '"a\u2028b"@example.com'],
  ])('rejects an address with a control character: %s', (_name, raw) => {
    expect(normaliseEmail(raw)).toEqual({ ok: false, reason: 'INVALID_EMAIL' });
  });

  it('still accepts a quoted local part without control characters', () => {
    expect(normaliseEmail('"john smith"@Example.COM')).toEqual({
      ok: true,
      value: '"john smith"@example.com',
    });
  });
});
