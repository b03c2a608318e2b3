import { randomBytes } from 'node:crypto';

/** Characters of a code: letters and digits only, all in GSM-7's basic set (a link costs no UCS-2). */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** 62^10 ≈ 8·10^17 codes (59.5 bits): a guess finds a live code once in billions of billions of tries. */
export const CODE_LENGTH = 10;
/** What the redirect accepts as a code at all (anything else is a 404 without a read). */
export const CODE_PATTERN = /^[A-Za-z0-9]{8,12}$/;
/** A byte at or above this would make `byte % 62` favour the first letters: it is skipped. */
const UNBIASED_BELOW = 248;

let pool = Buffer.alloc(0);
let at = 0;

/** A new random code; bytes come from a pool refilled 4 KiB at a time (one system call per ~400 codes). */
export function newLinkCode(): string {
  let code = '';
  while (code.length < CODE_LENGTH) {
    if (at >= pool.length) {
      pool = randomBytes(4096);
      at = 0;
    }
    const byte = pool[at++]!;
    if (byte < UNBIASED_BELOW) code += ALPHABET[byte % 62];
  }
  return code;
}

/**
 * A text cut around its links: `parts` are the text between them (one more than `urls`), and
 * `measured` the text as it is sent with codes of CODE_LENGTH characters, which every recipient's
 * copy matches in length and alphabet, so it is measured and priced once.
 */
export interface LinkTemplate {
  parts: string[];
  urls: string[];
  measured: string;
}

/** An http(s) URL runs to the next space (or a character no URL holds unescaped). */
const URL_IN_TEXT = /https?:\/\/[^\s<>"]+/gi;
/** Punctuation that ends a sentence rather than the URL before it. */
const TRAILING = /[.,;:!?'*]+$/;

/** The URL without what follows it in prose: a full stop, or a closing bracket it did not open. */
function trimUrl(url: string): string {
  let u = url;
  for (;;) {
    const before = u;
    u = u.replace(TRAILING, '');
    for (const [open, close] of ['()', '[]', '{}']) {
      if (u.endsWith(close!) && count(u, close!) > count(u, open!)) u = u.slice(0, -1);
    }
    if (u === before) return u;
  }
}

function count(s: string, ch: string): number {
  let n = 0;
  for (const c of s) if (c === ch) n++;
  return n;
}

/** The links of a text; null when it has none (the text is sent as it is). */
export function linkTemplate(text: string, base: string): LinkTemplate | null {
  const parts: string[] = [];
  const urls: string[] = [];
  let from = 0;
  for (const m of text.matchAll(URL_IN_TEXT)) {
    const url = trimUrl(m[0]);
    // "https://" alone, or followed only by punctuation, is no link.
    if (!/^https?:\/\/[^/?#]/i.test(url)) continue;
    parts.push(text.slice(from, m.index));
    urls.push(url);
    from = m.index + url.length;
  }
  if (urls.length === 0) return null;
  parts.push(text.slice(from));
  const placeholder = `${base}/${'x'.repeat(CODE_LENGTH)}`;
  return { parts, urls, measured: parts.join(placeholder) };
}

/** One recipient's copy: a fresh code per link. */
export function stampLinks(t: LinkTemplate, base: string): { text: string; codes: string[] } {
  const codes = t.urls.map(() => newLinkCode());
  let text = t.parts[0]!;
  for (let i = 0; i < codes.length; i++) text += `${base}/${codes[i]}${t.parts[i + 1]}`;
  return { text, codes };
}
