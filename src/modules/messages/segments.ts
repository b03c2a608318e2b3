export type SmsEncoding = 'GSM7' | 'UCS2';

export interface SegmentCount {
  encoding: SmsEncoding;
  /** Septets for GSM7, UTF-16 code units for UCS2. */
  units: number;
  segments: number;
  /** Capacity of each segment actually used: the single-part limit, or the smaller per-part limit once a message is split. */
  perSegment: number;
}

const GSM7_SINGLE = 160;
const GSM7_PART = 153; // 7 septets of each part go to the concatenation header
const UCS2_SINGLE = 70;
const UCS2_PART = 67;

// GSM 03.38 default alphabet in table order, ESC (0x1B) left out because callers never send it
// literally. Greek capitals are written as escapes so a Latin look-alike cannot slip in.
const GSM7_BASIC =
  '@\u00a3$\u00a5\u00e8\u00e9\u00f9\u00ec\u00f2\u00c7\n\u00d8\u00f8\r\u00c5\u00e5' +
  '\u0394_\u03a6\u0393\u039b\u03a9\u03a0\u03a8\u03a3\u0398\u039e\u00c6\u00e6\u00df\u00c9' +
  ' !"#\u00a4%&\'()*+,-./' +
  '0123456789:;<=>?' +
  '\u00a1ABCDEFGHIJKLMNOPQRSTUVWXYZ\u00c4\u00d6\u00d1\u00dc\u00a7' +
  '\u00bfabcdefghijklmnopqrstuvwxyz\u00e4\u00f6\u00f1\u00fc\u00e0';

// These travel as ESC + code, hence 2 septets each.
const GSM7_EXTENSION = '\f^{}\\[~]|\u20ac';

/** The codes of GSM7_EXTENSION's characters, in its order: each travels as ESC (0x1B) then its code. */
const GSM7_EXTENSION_CODES = [0x0a, 0x14, 0x28, 0x29, 0x2f, 0x3c, 0x3d, 0x3e, 0x40, 0x65];
const ESC = 0x1b;

/** GSM 03.38 code by UTF-16 code unit; an extension character's is ESC << 8 | its code. */
const GSM7_CODE: ReadonlyMap<number, number> = (() => {
  // GSM7_BASIC leaves ESC out, so from ESC's place on a character's code is its index + 1.
  const map = new Map<number, number>([[ESC, ESC]]);
  for (let i = 0; i < GSM7_BASIC.length; i++) map.set(GSM7_BASIC.charCodeAt(i), i < ESC ? i : i + 1);
  for (let i = 0; i < GSM7_EXTENSION.length; i++)
    map.set(GSM7_EXTENSION.charCodeAt(i), (ESC << 8) | GSM7_EXTENSION_CODES[i]);
  return map;
})();

/** Septet cost by UTF-16 code unit, from the codes above (ESC is never sent literally); absent means the character forces UCS2. */
const GSM7_COST: ReadonlyMap<number, 1 | 2> = new Map(
  [...GSM7_CODE].filter(([unit]) => unit !== ESC).map(([unit, code]) => [unit, code > 0xff ? 2 : 1]),
);

/**
 * The text as GSM 03.38 septets, one per octet (unpacked, as SMPP carries them), the extension
 * table's characters as ESC pairs. Only for text isGsm7 accepts (a lone ESC also passes through):
 * another character throws, or with `outside: 'space'` becomes a space, as the smpp library's
 * coder does (for text the library decoded, which a national shift table can leave outside).
 */
export function encodeGsm7(text: string, outside: 'throw' | 'space' = 'throw'): Buffer {
  const out = Buffer.allocUnsafe(text.length * 2);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const code = GSM7_CODE.get(text.charCodeAt(i)) ?? (outside === 'space' ? 0x20 : undefined);
    if (code === undefined)
      throw new Error(
        `U+${text.charCodeAt(i).toString(16).padStart(4, '0')} is not in the GSM 03.38 alphabet`,
      );
    if (code > 0xff) out[n++] = ESC;
    out[n++] = code & 0xff;
  }
  return out.subarray(0, n);
}

interface Walk {
  encoding: SmsEncoding;
  units: number;
  perSegment: number;
  /** UTF-16 offsets at which the 2nd, 3rd, ... parts start. */
  breaks: number[];
}

/** True when every character of the text is in the GSM-7 default alphabet or its extension table. */
export function isGsm7(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (!GSM7_COST.has(text.charCodeAt(i))) return false;
  }
  return true;
}

function isSurrogatePairAt(text: string, i: number): boolean {
  const hi = text.charCodeAt(i);
  if (hi < 0xd800 || hi > 0xdbff || i + 1 >= text.length) return false;
  const lo = text.charCodeAt(i + 1);
  return lo >= 0xdc00 && lo <= 0xdfff;
}

/**
 * Lays the text out into parts the way a sender must: a 2-septet escape pair or a surrogate pair is never cut,
 * so it moves whole to the next part. Counting and splitting both read this one walk so they cannot disagree.
 */
function walk(text: string): Walk {
  const gsm = isGsm7(text);
  const single = gsm ? GSM7_SINGLE : UCS2_SINGLE;
  const part = gsm ? GSM7_PART : UCS2_PART;

  // First pass only totals, because the common short message needs no layout at all.
  let units = 0;
  if (gsm) {
    for (let i = 0; i < text.length; i++) units += GSM7_COST.get(text.charCodeAt(i))!;
  } else {
    units = text.length;
  }
  if (units <= single) return { encoding: gsm ? 'GSM7' : 'UCS2', units, perSegment: single, breaks: [] };

  const breaks: number[] = [];
  let used = 0;
  for (let i = 0; i < text.length;) {
    const width = gsm ? GSM7_COST.get(text.charCodeAt(i))! : isSurrogatePairAt(text, i) ? 2 : 1;
    // Every GSM7 character is one code unit even when it costs 2 septets; a UCS2 width is its code units.
    const step = gsm ? 1 : width;
    if (used + width > part) {
      breaks.push(i);
      used = 0;
    }
    used += width;
    i += step;
  }
  return { encoding: gsm ? 'GSM7' : 'UCS2', units, perSegment: part, breaks };
}

export function countSegments(text: string): SegmentCount {
  const { encoding, units, perSegment, breaks } = walk(text);
  return { encoding, units, segments: breaks.length + 1, perSegment };
}

export function splitSegments(text: string): string[] {
  const { breaks } = walk(text);
  const parts: string[] = [];
  let start = 0;
  for (const end of breaks) {
    parts.push(text.slice(start, end));
    start = end;
  }
  parts.push(text.slice(start));
  return parts;
}
