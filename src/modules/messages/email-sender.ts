import { normaliseEmail } from './recipients.js';

export interface ParsedSender {
  /** Display name as the reader sees it, unquoted; null when only an address was given. */
  name: string | null;
  address: string;
}

export const MAX_DISPLAY_NAME_CHARS = 128;

// Control characters (CR and LF above all: header injection) are never part of a name.
const CONTROL = /[\u0000-\u001f\u007f]/;
const NAME_AND_ADDRESS = /^(.*?)\s*<([^<>]*)>$/s;

/**
 * Parses `news@acme.example`, `ACME News <news@acme.example>` or `"ACME, Inc." <news@acme.example>`.
 * Strict: one address, no comments, no line breaks or control characters anywhere, and the
 * address itself as valid as a recipient's. Returns null for anything else.
 */
export function parseSender(raw: unknown): ParsedSender | null {
  if (typeof raw !== 'string') return null;
  const text = raw.trim();
  if (CONTROL.test(text)) return null;
  const m = NAME_AND_ADDRESS.exec(text);
  if (!m) {
    const plain = normaliseEmail(text);
    return plain.ok ? { name: null, address: plain.value } : null;
  }
  let name = m[1].trim();
  if (name.length >= 2 && name.startsWith('"') && name.endsWith('"')) {
    const inner = name.slice(1, -1);
    // An escaped quote or backslash is the only escape a quoted name knows.
    if (/(^|[^\\])"/.test(inner)) return null;
    name = inner.replace(/\\(["\\])/g, '$1').trim();
  } else if (/["<>]/.test(name)) {
    return null;
  }
  if ([...name].length > MAX_DISPLAY_NAME_CHARS) return null;
  const address = normaliseEmail(m[2]);
  if (!address.ok) return null;
  return { name: name || null, address: address.value };
}

/** The form stored with the request and shown back: `Name <address>`, or the bare address. */
export function formatSender(sender: ParsedSender): string {
  if (!sender.name) return sender.address;
  const needsQuotes = /[()<>[\]:;@\\,."]/.test(sender.name);
  const name = needsQuotes ? `"${sender.name.replace(/(["\\])/g, '\\$1')}"` : sender.name;
  return `${name} <${sender.address}>`;
}
