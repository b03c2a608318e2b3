import { describe, expect, it } from 'vitest';
import { isGsm7 } from '../../messages/segments.js';
import { SMART_ENCODING_TABLE, smartEncode } from './smart-encoding.js';

describe('smart encoding table', () => {
  it('holds each character once', () => {
    const froms = SMART_ENCODING_TABLE.map(([from]) => from);
    expect(new Set(froms).size).toBe(froms.length);
  });

  const rows = SMART_ENCODING_TABLE.map(([from, to, name]) => ({
    from,
    to,
    name,
    code: `U+${from.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`,
  }));
  describe.each(rows)('$code $name', ({ from, to }) => {
    it('is itself outside GSM-7 and becomes GSM-7 text', () => {
      expect(isGsm7(from)).toBe(false);
      expect(isGsm7(to)).toBe(true);
    });

    it('is replaced, and counted, inside an otherwise GSM-7 text', () => {
      expect(smartEncode(`a${from}b${from}`)).toEqual({
        text: `a${to}b${to}`,
        replaced: [{ from, to, count: 2 }],
      });
    });

    it('is left as written when the text stays UCS-2 anyway', () => {
      expect(smartEncode(`${from} Привет`)).toEqual({ text: `${from} Привет`, replaced: [] });
    });
  });

  it.each([
    ['á', 'a letter with an accent GSM-7 lacks'],
    ['ç', 'a lower-case c cedilla (GSM-7 has only the capital)'],
    ['Ж', 'a Cyrillic letter'],
    ['😀', 'an emoji'],
    ['•', 'a bullet'],
    ['©', 'a copyright sign'],
  ])('never changes %s (%s), which has no GSM-7 look-alike', (ch) => {
    expect(smartEncode(`Hello ${ch} world\u2019s`)).toEqual({
      text: `Hello ${ch} world\u2019s`,
      replaced: [],
    });
  });

  it('leaves a GSM-7 text untouched and reports nothing', () => {
    expect(smartEncode('Plain text, 100% GSM-7 {with} [extension] chars €')).toEqual({
      text: 'Plain text, 100% GSM-7 {with} [extension] chars €',
      replaced: [],
    });
  });

  it('turns a UCS-2 text with curly quotes and an ellipsis into a GSM-7 one, listing replacements in order', () => {
    expect(smartEncode('\u201CIt\u2019s here\u201D \u2014 wait\u2026 it\u2019s')).toEqual({
      text: '"It\'s here" - wait... it\'s',
      replaced: [
        { from: '\u201C', to: '"', count: 1 },
        { from: '\u2019', to: "'", count: 2 },
        { from: '\u201D', to: '"', count: 1 },
        { from: '\u2014', to: '-', count: 1 },
        { from: '\u2026', to: '...', count: 1 },
      ],
    });
  });
});
