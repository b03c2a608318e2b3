import { isGsm7 } from '../../messages/segments.js';

/**
 * Unicode characters that look like a GSM-7 character (or like nothing at all) and what they
 * become. Only punctuation, spaces and invisible marks: a letter is never changed, so a name
 * with an accent the GSM-7 alphabet lacks keeps it (and the text stays UCS-2). This table is
 * the one docs/api/personalisation.md documents.
 */
export const SMART_ENCODING_TABLE: ReadonlyArray<readonly [from: string, to: string, name: string]> = [
  ['\u2018', "'", 'left single quotation mark'],
  ['\u2019', "'", 'right single quotation mark'],
  ['\u201A', "'", 'single low-9 quotation mark'],
  ['\u201B', "'", 'single high-reversed-9 quotation mark'],
  ['\u2032', "'", 'prime'],
  ['\u02BC', "'", 'modifier letter apostrophe'],
  ['\u00B4', "'", 'acute accent'],
  ['\u0060', "'", 'grave accent'],
  ['\u201C', '"', 'left double quotation mark'],
  ['\u201D', '"', 'right double quotation mark'],
  ['\u201E', '"', 'double low-9 quotation mark'],
  ['\u201F', '"', 'double high-reversed-9 quotation mark'],
  ['\u2033', '"', 'double prime'],
  ['\u00AB', '"', 'left-pointing double angle quotation mark'],
  ['\u00BB', '"', 'right-pointing double angle quotation mark'],
  ['\u2039', '<', 'single left-pointing angle quotation mark'],
  ['\u203A', '>', 'single right-pointing angle quotation mark'],
  ['\u2010', '-', 'hyphen'],
  ['\u2011', '-', 'non-breaking hyphen'],
  ['\u2012', '-', 'figure dash'],
  ['\u2013', '-', 'en dash'],
  ['\u2014', '-', 'em dash'],
  ['\u2015', '-', 'horizontal bar'],
  ['\u2212', '-', 'minus sign'],
  ['\u2026', '...', 'horizontal ellipsis'],
  ['\u2044', '/', 'fraction slash'],
  ['\u2215', '/', 'division slash'],
  ['\u02C6', '^', 'modifier letter circumflex accent'],
  ['\u02DC', '~', 'small tilde'],
  ['\u0009', ' ', 'character tabulation'],
  ['\u00A0', ' ', 'no-break space'],
  ['\u2000', ' ', 'en quad'],
  ['\u2001', ' ', 'em quad'],
  ['\u2002', ' ', 'en space'],
  ['\u2003', ' ', 'em space'],
  ['\u2004', ' ', 'three-per-em space'],
  ['\u2005', ' ', 'four-per-em space'],
  ['\u2006', ' ', 'six-per-em space'],
  ['\u2007', ' ', 'figure space'],
  ['\u2008', ' ', 'punctuation space'],
  ['\u2009', ' ', 'thin space'],
  ['\u200A', ' ', 'hair space'],
  ['\u202F', ' ', 'narrow no-break space'],
  ['\u205F', ' ', 'medium mathematical space'],
  ['\u3000', ' ', 'ideographic space'],
  ['\u00AD', '', 'soft hyphen'],
  ['\u200B', '', 'zero width space'],
  ['\u200C', '', 'zero width non-joiner'],
  ['\u200D', '', 'zero width joiner'],
  ['\u2060', '', 'word joiner'],
  ['\uFEFF', '', 'zero width no-break space (byte order mark)'],
];

const REPLACEMENT = new Map(SMART_ENCODING_TABLE.map(([from, to]) => [from, to]));
const CANDIDATES = new RegExp(`[${SMART_ENCODING_TABLE.map(([f]) => f).join('')}]`, 'g');

export interface Replacement {
  from: string;
  to: string;
  count: number;
}

export interface SmartEncoded {
  text: string;
  /** What was replaced, in order of first occurrence; empty when the text was left as written. */
  replaced: Replacement[];
}

/**
 * Replaces look-alikes only when that makes the whole text GSM-7: a text that would stay
 * UCS-2 anyway (an emoji, a Cyrillic word) is left exactly as written, because replacing
 * its quotes would change it without saving a segment.
 */
export function smartEncode(text: string): SmartEncoded {
  if (isGsm7(text)) return { text, replaced: [] };
  const counts = new Map<string, number>();
  const out = text.replace(CANDIDATES, (c) => {
    counts.set(c, (counts.get(c) ?? 0) + 1);
    return REPLACEMENT.get(c)!;
  });
  if (counts.size === 0 || !isGsm7(out)) return { text, replaced: [] };
  return {
    text: out,
    replaced: [...counts].map(([from, count]) => ({ from, to: REPLACEMENT.get(from)!, count })),
  };
}

/** Adds one text's replacements into a running total, keeping first-seen order. */
export function addReplacements(total: Map<string, Replacement>, more: Replacement[]): void {
  for (const r of more) {
    const seen = total.get(r.from);
    if (seen) seen.count += r.count;
    else total.set(r.from, { ...r });
  }
}
