import { describe, expect, it } from 'vitest';
import smpp from 'smpp';
import { countSegments, encodeGsm7, splitSegments, type SmsEncoding } from './segments.js';

const EXTENSION = ['\f', '^', '{', '}', '\\', '[', '~', ']', '|', '\u20ac'];
const GSM_BASIC_SAMPLE =
  '@\u00a3$\u00a5\u00e8\u00e9\u00f9\u00ec\u00f2\u00c7\n\u00d8\u00f8\r\u00c5\u00e5' +
  '\u0394_\u03a6\u0393\u039b\u03a9\u03a0\u03a8\u03a3\u0398\u039e\u00c6\u00e6\u00df\u00c9' +
  ' !"#\u00a4%&\'()*+,-./0123456789:;<=>?\u00a1AZ\u00c4\u00d6\u00d1\u00dc\u00a7\u00bfaz\u00e4\u00f6\u00f1\u00fc\u00e0';
const EMOJI = '\u{1F600}';
const CYR = '\u0436'; // 'ж': one UTF-16 unit and outside GSM 03.38

function septets(part: string): number {
  let n = 0;
  for (const ch of part) n += EXTENSION.includes(ch) ? 2 : 1;
  return n;
}

describe('countSegments', () => {
  it.each<[string, string, SmsEncoding, number, number, number]>([
    ['empty text', '', 'GSM7', 0, 1, 160],
    ['hello', 'hello', 'GSM7', 5, 1, 160],
    ['exactly 160 GSM chars', 'a'.repeat(160), 'GSM7', 160, 1, 160],
    ['161 GSM chars', 'a'.repeat(161), 'GSM7', 161, 2, 153],
    ['306 GSM chars', 'a'.repeat(306), 'GSM7', 306, 2, 153],
    ['307 GSM chars', 'a'.repeat(307), 'GSM7', 307, 3, 153],
    ['459 GSM chars', 'a'.repeat(459), 'GSM7', 459, 3, 153],
    ['460 GSM chars', 'a'.repeat(460), 'GSM7', 460, 4, 153],
    ['euro sign alone', '\u20ac', 'GSM7', 2, 1, 160],
    ['158 chars + euro = 160 septets', 'a'.repeat(158) + '\u20ac', 'GSM7', 160, 1, 160],
    ['159 chars + euro = 161 septets', 'a'.repeat(159) + '\u20ac', 'GSM7', 161, 2, 153],
    ['80 euro signs = 160 septets', '\u20ac'.repeat(80), 'GSM7', 160, 1, 160],
    ['81 euro signs = 162 septets', '\u20ac'.repeat(81), 'GSM7', 162, 2, 153],
    ['every basic-table character sample', GSM_BASIC_SAMPLE, 'GSM7', GSM_BASIC_SAMPLE.length, 1, 160],
    ['CR LF count one each', 'a\r\nb', 'GSM7', 4, 1, 160],
    [
      'Greek capitals stay GSM7',
      '\u0394\u03a6\u0393\u039b\u03a9\u03a0\u03a8\u03a3\u0398\u039e',
      'GSM7',
      10,
      1,
      160,
    ],
    ['capital C-cedilla is GSM7', '\u00c7', 'GSM7', 1, 1, 160],
    ['lone small c-cedilla forces UCS2', '\u00e7', 'UCS2', 1, 1, 70],
    ['small Greek letter forces UCS2', '\u03b4', 'UCS2', 1, 1, 70],
    ['backtick forces UCS2', '`', 'UCS2', 1, 1, 70],
    ['curly quote forces UCS2', '\u2019', 'UCS2', 1, 1, 70],
    ['emoji counts 2 units', EMOJI, 'UCS2', 2, 1, 70],
    ['emoji turns a GSM text into UCS2', 'hello ' + EMOJI, 'UCS2', 8, 1, 70],
    ['euro is 1 unit once in UCS2', '\u20ac' + CYR, 'UCS2', 2, 1, 70],
    ['exactly 70 UCS2 units', CYR.repeat(70), 'UCS2', 70, 1, 70],
    ['71 UCS2 units', CYR.repeat(71), 'UCS2', 71, 2, 67],
    ['134 UCS2 units', CYR.repeat(134), 'UCS2', 134, 2, 67],
    ['135 UCS2 units', CYR.repeat(135), 'UCS2', 135, 3, 67],
    ['35 emoji = 70 units', EMOJI.repeat(35), 'UCS2', 70, 1, 70],
    ['36 emoji = 72 units', EMOJI.repeat(36), 'UCS2', 72, 2, 67],
    ['Arabic', '\u0645\u0631\u062d\u0628\u0627', 'UCS2', 5, 1, 70],
    ['Hebrew', '\u05e9\u05dc\u05d5\u05dd', 'UCS2', 4, 1, 70],
    ['Arabic, 71 units', '\u0645'.repeat(71), 'UCS2', 71, 2, 67],
    ['Chinese', '\u4f60\u597d', 'UCS2', 2, 1, 70],
    ['lone high surrogate still counts 1 unit', 'a\ud83d', 'UCS2', 2, 1, 70],
  ])('%s', (_name, text, encoding, units, segments, perSegment) => {
    expect(countSegments(text)).toEqual({ encoding, units, segments, perSegment });
  });

  it.each(EXTENSION.map((ch) => [JSON.stringify(ch), ch]))(
    'extension char %s counts 2 septets',
    (_name, ch) => {
      expect(countSegments(ch)).toEqual({ encoding: 'GSM7', units: 2, segments: 1, perSegment: 160 });
      expect(countSegments('a'.repeat(158) + ch).segments).toBe(1);
      expect(countSegments('a'.repeat(159) + ch).segments).toBe(2);
    },
  );

  it('needs an extra part when an escape pair would straddle the 153 boundary', () => {
    // 306 septets divide into exactly 2 parts, but the euro cannot start at septet 153 of part one.
    const text = 'a'.repeat(152) + '\u20ac' + 'a'.repeat(152);
    expect(countSegments(text)).toEqual({ encoding: 'GSM7', units: 306, segments: 3, perSegment: 153 });
  });

  it('does not add a part when the escape pair ends exactly on the boundary', () => {
    const text = 'a'.repeat(151) + '\u20ac' + 'a'.repeat(153);
    expect(countSegments(text)).toEqual({ encoding: 'GSM7', units: 306, segments: 2, perSegment: 153 });
  });

  it('needs an extra part when a surrogate pair would straddle the 67 boundary', () => {
    const text = CYR.repeat(66) + EMOJI + CYR.repeat(66);
    expect(countSegments(text)).toEqual({ encoding: 'UCS2', units: 134, segments: 3, perSegment: 67 });
  });

  it('agrees with splitSegments on part count', () => {
    for (const text of fuzzTexts()) {
      expect(countSegments(text).segments).toBe(splitSegments(text).length);
    }
  });
});

describe('splitSegments', () => {
  it.each([
    ['empty', ''],
    ['short GSM', 'hello'],
    ['160 GSM', 'a'.repeat(160)],
    ['70 UCS2', CYR.repeat(70)],
    ['160 septets with extension chars', '{}'.repeat(40)],
  ])('keeps a single-segment message (%s) whole', (_name, text) => {
    expect(splitSegments(text)).toEqual([text]);
  });

  it('splits plain GSM text into 153-septet parts', () => {
    const parts = splitSegments('a'.repeat(307));
    expect(parts.map((p) => p.length)).toEqual([153, 153, 1]);
  });

  it('splits plain UCS2 text into 67-unit parts', () => {
    const parts = splitSegments(CYR.repeat(135));
    expect(parts.map((p) => p.length)).toEqual([67, 67, 1]);
  });

  it('moves a straddling escape pair whole to the next part', () => {
    const parts = splitSegments('a'.repeat(152) + '\u20ac' + 'a'.repeat(152));
    expect(parts).toEqual(['a'.repeat(152), '\u20ac' + 'a'.repeat(151), 'a']);
  });

  it('moves a straddling surrogate pair whole to the next part', () => {
    const parts = splitSegments(CYR.repeat(66) + EMOJI + CYR.repeat(66));
    expect(parts).toEqual([CYR.repeat(66), EMOJI + CYR.repeat(65), CYR]);
  });

  it('splits a message made only of emoji on pair boundaries', () => {
    const parts = splitSegments(EMOJI.repeat(36));
    // 67 is odd, so each part holds 33 emoji (66 units).
    expect(parts).toEqual([EMOJI.repeat(33), EMOJI.repeat(3)]);
  });

  it('splits a message made only of extension chars on pair boundaries', () => {
    const parts = splitSegments('\u20ac'.repeat(81));
    expect(parts).toEqual(['\u20ac'.repeat(76), '\u20ac'.repeat(5)]);
  });

  it('reassembles to the original and respects part limits for varied texts', () => {
    for (const text of fuzzTexts()) {
      const parts = splitSegments(text);
      expect(parts.join('')).toBe(text);
      const { encoding, segments } = countSegments(text);
      if (segments === 1) continue;
      for (const part of parts) {
        expect(part.length).toBeGreaterThan(0);
        // A part boundary inside a surrogate pair would leave a low surrogate at the start of the next part.
        expect(part.charCodeAt(0) >= 0xdc00 && part.charCodeAt(0) <= 0xdfff).toBe(false);
        const last = part.charCodeAt(part.length - 1);
        expect(last >= 0xd800 && last <= 0xdbff).toBe(false);
        if (encoding === 'GSM7') expect(septets(part)).toBeLessThanOrEqual(153);
        else expect(part.length).toBeLessThanOrEqual(67);
      }
    }
  });
});

/** Deterministic mix of lengths and alphabets so failures reproduce. */
function fuzzTexts(): string[] {
  let seed = 0x2545f491;
  const next = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 8) % n;
  };
  const gsmPool = [...'abcXYZ 019.,!?@\u00a3\u00e9\u0394'].concat(EXTENSION);
  const ucsPool = gsmPool.concat([EMOJI, '\u{1F44D}', CYR, '\u05e9', '\u0645', '\u00e7']);
  const texts: string[] = [];
  for (let t = 0; t < 300; t++) {
    const pool = t % 2 === 0 ? gsmPool : ucsPool;
    const length = next(500);
    let text = '';
    for (let i = 0; i < length; i++) text += pool[next(pool.length)];
    texts.push(text);
  }
  return texts;
}

describe('encodeGsm7', () => {
  const ALPHABET =
    '@\u00a3$\u00a5\u00e8\u00e9\u00f9\u00ec\u00f2\u00c7\n\u00d8\u00f8\r\u00c5\u00e5' +
    '\u0394_\u03a6\u0393\u039b\u03a9\u03a0\u03a8\u03a3\u0398\u039e\u00c6\u00e6\u00df\u00c9' +
    ' !"#\u00a4%&\'()*+,-./0123456789:;<=>?' +
    '\u00a1ABCDEFGHIJKLMNOPQRSTUVWXYZ\u00c4\u00d6\u00d1\u00dc\u00a7' +
    '\u00bfabcdefghijklmnopqrstuvwxyz\u00e4\u00f6\u00f1\u00fc\u00e0';

  it('writes each character of the alphabet as the SMPP library does, ESC pairs for the extension table', () => {
    // The smpp library's own GSM 03.38 coder is the independent reference here.
    const text = ALPHABET + EXTENSION.join('') + 'Price 5\u20ac [a]';
    expect(encodeGsm7(text).toString('hex')).toBe(smpp.gsmCoder.encode(text, 0).toString('hex'));
    expect([...encodeGsm7('@\u00a3\u20ac[a')]).toEqual([0x00, 0x01, 0x1b, 0x65, 0x1b, 0x3c, 0x61]);
    // One code per position of the table: 128 characters, ESC's own place (0x1B) left out.
    expect([...encodeGsm7(ALPHABET)]).toEqual([...Array(128).keys()].filter((c) => c !== 0x1b));
  });

  it('refuses a character outside the alphabet rather than sending something else', () => {
    expect(() => encodeGsm7(`a${CYR}`)).toThrow(/U\+0436/);
    // Text the library decoded (a receipt) is read back as the library would: a space for it.
    expect([...encodeGsm7(`a${CYR}`, 'space')]).toEqual([0x61, 0x20]);
  });
});
