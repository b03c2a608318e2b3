/**
 * The largest request body each route takes, in bytes, and the reasoning behind each figure.
 * A body over its route's limit is refused before it is read (body-reader.ts), so a limit is
 * what one request can make the process read and parse at most: each is sized for the largest
 * legal request of its route, a send to MAX_RECIPIENTS (10,000 by default) recipients, and not
 * much more.
 */

const KB = 1024;

/**
 * One recipient of a JSON send, with room to spare: a phone number of up to 15 digits or a
 * typical e-mail address, quoted, with its comma (under 40 bytes), plus its entry in `variables`
 * (`"260971234567":{"first_name":"Jane","amount":"120.50"},` is 55 bytes). 10,000 recipients:
 * 1.25 MiB.
 */
export const JSON_BYTES_PER_RECIPIENT = 128;

/**
 * One recipient of the XML send: `<to>260971234567</to>` is 21 bytes, 24 with 15 digits, a few
 * more with the line break and indentation a pretty-printer adds. 10,000 recipients: 312 KiB.
 */
export const XML_BYTES_PER_RECIPIENT = 32;

/**
 * Everything but the recipients of an SMS or chat send: the text (10 SMS segments, or 4,096
 * chat characters, 4 bytes each in UTF-8, more when JSON escapes them as `\uXXXX`), the chat
 * fallback's SMS, sender, callback URL, references, schedule: well under 64 KiB.
 */
export const TEXT_FIELDS_BYTES = 64 * KB;

/**
 * Everything but the recipients of the XML send (SMS only, no variables): 10 segments of text,
 * even written as character references, and the few other fields fit in 16 KiB.
 */
export const XML_FIELDS_BYTES = 16 * KB;

/**
 * An e-mail body may be 1 MiB of UTF-8 (MAX_EMAIL_BODY_BYTES in the e-mail policy and the
 * template rules); written as a JSON string its quotes and line breaks take two bytes each,
 * so a quarter more, and the subject and other fields beside it.
 */
export const EMAIL_FIELDS_BYTES = 1280 * KB + TEXT_FIELDS_BYTES;

/**
 * Every other route (balance, lookups, cancels, reschedules, sub-accounts, transfers, keys,
 * erasure) takes a handful of short fields.
 */
export const SMALL_BODY_BYTES = 16 * KB;

/** The limits by kind of route, once MAX_RECIPIENTS and the two overriding settings are known. */
export interface BodyLimits {
  /** JSON SMS and chat sends and their previews; suppression lists (at most 10,000 entries). */
  send: number;
  /** JSON e-mail sends and their previews. */
  email: number;
  /** E-mail templates (a template body may be as long as an e-mail's). */
  template: number;
  /** The XML SMS endpoint. */
  xml: number;
  /** Everything else. */
  small: number;
}

/**
 * The limits for sends of up to `maxRecipients` recipients. `jsonOverride` (BODY_LIMIT) replaces
 * the send and e-mail limits, `xmlOverride` (XML_BODY_LIMIT) the XML one.
 */
export function bodyLimitsFor(
  maxRecipients: number,
  jsonOverride?: number,
  xmlOverride?: number,
): BodyLimits {
  const recipients = maxRecipients * JSON_BYTES_PER_RECIPIENT;
  return {
    send: jsonOverride ?? TEXT_FIELDS_BYTES + recipients,
    email: jsonOverride ?? EMAIL_FIELDS_BYTES + recipients,
    template: EMAIL_FIELDS_BYTES,
    xml: xmlOverride ?? XML_FIELDS_BYTES + maxRecipients * XML_BYTES_PER_RECIPIENT,
    small: SMALL_BODY_BYTES,
  };
}

/** Each limit the lower of the two. */
export function lowerOf(a: BodyLimits, b: BodyLimits): BodyLimits {
  return {
    send: Math.min(a.send, b.send),
    email: Math.min(a.email, b.email),
    template: Math.min(a.template, b.template),
    xml: Math.min(a.xml, b.xml),
    small: Math.min(a.small, b.small),
  };
}

/** `512kb`, `4mb` or a number of bytes (the settings' SIZE form) in bytes. */
export function parseSize(text: string): number {
  const m = /^(\d+)(kb|mb)?$/i.exec(text.trim());
  if (!m) throw new Error(`not a size: ${text}`);
  const unit = m[2]?.toLowerCase();
  return Number(m[1]) * (unit === 'mb' ? KB * KB : unit === 'kb' ? KB : 1);
}

const SEND = /^\/api\/v1\/json\/bulk\/(sms|chat|email)(?:\/preview)?\/?$/;

/** The limit of the route at `path` (the request's path, without its query). */
export function bodyLimitOf(path: string, limits: BodyLimits): number {
  if (path.startsWith('/api/v1/xml/')) return limits.xml;
  const send = SEND.exec(path);
  if (send) return send[1] === 'email' ? limits.email : limits.send;
  if (path === '/api/v1/json/suppressions' || path === '/api/v1/json/suppressions/') return limits.send;
  if (path.startsWith('/api/v1/json/templates')) return limits.template;
  return limits.small;
}
