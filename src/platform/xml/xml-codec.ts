import { XMLParser, XMLValidator, type X2jOptions } from 'fast-xml-parser';

/**
 * XML codec of the XML SMS endpoint.
 *
 * Reading is deliberately narrow: any DOCTYPE or ENTITY declaration is refused outright, only the
 * five predefined XML entities and numeric character references are decoded, and nesting and
 * element counts are capped, so entity expansion (billion laughs, XXE) and oversized trees are
 * impossible rather than merely limited.
 */

export interface XmlLimits {
  maxDepth: number;
  maxNodes: number;
}

export const DEFAULT_XML_LIMITS: Readonly<XmlLimits> = Object.freeze({ maxDepth: 8, maxNodes: 20_000 });

export interface XmlSendRequest {
  from?: unknown;
  to?: string[] | unknown;
  message?: unknown;
  source?: unknown;
  callback_url?: unknown;
  user_reference_id?: unknown;
  send_at?: unknown;
  validity_period?: unknown;
}

// Checked on the raw text so a declaration is refused before any parser sees it, whatever its
// case or the whitespace after `<!`.
const DECLARATION_PATTERN = /<!\s*(?:DOCTYPE|ENTITY)/i;

// These names would reach Object.prototype through an ordinary assignment; they are dropped even
// though the result objects have no prototype, so nothing downstream can copy them onwards.
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

// `$` cannot start an XML name, so the prefix never collides with a real element name. The parser
// would otherwise throw on `__proto__`-like names and rename `toString`-like ones; prefixing keeps
// the original names intact until this module strips the prefix and decides what to keep.
const TAG_PREFIX = '$';
const TEXT_NODE = '#text';

const PREDEFINED_ENTITIES: Readonly<Record<string, string>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, string>, {
    amp: '&',
    lt: '<',
    gt: '>',
    quot: '"',
    apos: "'",
  }),
);

const ENTITY_REFERENCE = /&(#x[0-9a-fA-F]+|#[0-9]+|[^\s&;<]*)(;?)/g;

class XmlEntityError extends Error {}

function isXmlChar(codePoint: number): boolean {
  return (
    codePoint === 0x9 ||
    codePoint === 0xa ||
    codePoint === 0xd ||
    (codePoint >= 0x20 && codePoint <= 0xd7ff) ||
    (codePoint >= 0xe000 && codePoint <= 0xfffd) ||
    (codePoint >= 0x10000 && codePoint <= 0x10ffff)
  );
}

function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(ENTITY_REFERENCE, (_match, name: string, semicolon: string) => {
    if (semicolon !== ';' || name === '') {
      throw new XmlEntityError('A "&" in the XML text is not part of an entity reference.');
    }
    if (name.startsWith('#')) {
      const codePoint = name.startsWith('#x')
        ? Number.parseInt(name.slice(2), 16)
        : Number.parseInt(name.slice(1), 10);
      if (!Number.isSafeInteger(codePoint) || !isXmlChar(codePoint)) {
        throw new XmlEntityError(
          'The XML text contains a character reference to a character XML does not allow.',
        );
      }
      return String.fromCodePoint(codePoint);
    }
    const value = PREDEFINED_ENTITIES[name];
    if (value === undefined) {
      throw new XmlEntityError(`The XML text uses the undeclared entity "&${name};".`);
    }
    return value;
  });
}

// fast-xml-parser's own decoder only knows numeric references when HTML entities are switched on,
// and it accepts entities declared in a DOCTYPE. This one knows the predefined entities and numeric
// references only; it is not consulted for CDATA, which therefore stays literal.
const entityDecoder: NonNullable<X2jOptions['entityDecoder']> = {
  decode: decodeEntities,
  reset: () => undefined,
  setXmlVersion: () => undefined,
  addInputEntities: () => {
    throw new XmlEntityError('Entity declarations are not accepted.');
  },
  setExternalEntities: () => {
    throw new XmlEntityError('Entity declarations are not accepted.');
  },
};

/**
 * A request body that is not a small, plain, well-formed document. The error envelope answers
 * it as MALFORMED_BODY (400) with this message (platform/errors maps it).
 */
export class MalformedXmlError extends Error {
  readonly code = 'MALFORMED_BODY' as const;
  readonly status = 400;
  override readonly name = 'MalformedXmlError';
}

function malformed(message: string): MalformedXmlError {
  return new MalformedXmlError(message);
}

function parserOptions(limits: XmlLimits): X2jOptions {
  return {
    ignoreAttributes: true,
    ignoreDeclaration: true,
    ignorePiTags: true,
    // Numbers such as phone numbers must keep their leading zeros and exact digits.
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    textNodeName: TEXT_NODE,
    cdataPropName: false,
    commentPropName: false,
    // Enabled only so the parser hands text to `entityDecoder`; DOCTYPE handling never runs because
    // declarations are refused beforehand, and the decoder rejects any declared entity regardless.
    processEntities: { enabled: true, maxEntityCount: 1, maxEntitySize: 1 },
    htmlEntities: false,
    entityDecoder,
    maxNestedTags: limits.maxDepth,
    transformTagName: (name) => (name.startsWith(TAG_PREFIX) ? name : TAG_PREFIX + name),
  };
}

interface WalkState {
  nodes: number;
  limits: XmlLimits;
}

function tooDeep(limits: XmlLimits): MalformedXmlError {
  return malformed(`The XML document is nested more than ${limits.maxDepth} levels deep.`);
}

function countNode(state: WalkState): void {
  state.nodes += 1;
  if (state.nodes > state.limits.maxNodes) {
    throw malformed(`The XML document has more than ${state.limits.maxNodes} elements.`);
  }
}

/** Converts one parsed element value; `depth` is the element's own nesting level (root = 1). */
function convertValue(value: unknown, depth: number, state: WalkState): unknown {
  if (depth > state.limits.maxDepth) throw tooDeep(state.limits);
  countNode(state);
  if (value === null || value === undefined) return '';
  if (typeof value !== 'object') return String(value);
  return convertChildren(value as Record<string, unknown>, depth, state);
}

function convertChildren(
  element: Record<string, unknown>,
  depth: number,
  state: WalkState,
): Record<string, unknown> {
  const result = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(element)) {
    const raw = element[key];
    if (key === TEXT_NODE) {
      // Mixed content: kept so the field is visibly not a plain string to later validation.
      result[TEXT_NODE] = String(raw);
      continue;
    }
    if (!key.startsWith(TAG_PREFIX)) continue;
    const name = key.slice(TAG_PREFIX.length);
    if (FORBIDDEN_KEYS.has(name)) continue;
    result[name] = Array.isArray(raw)
      ? raw.map((item) => convertValue(item, depth + 1, state))
      : convertValue(raw, depth + 1, state);
  }
  return result;
}

/**
 * Parses an XML document of any root element name and returns the root's children as a
 * null-prototype object: text as strings, repeated elements as arrays. Throws
 * `MalformedXmlError` (MALFORMED_BODY) for anything that is not a small, plain, well-formed document.
 */
export function parseXmlDocument(
  text: string,
  limits: XmlLimits = DEFAULT_XML_LIMITS,
): Record<string, unknown> {
  if (typeof text !== 'string' || text.trim() === '') {
    throw malformed('The request body is empty; an XML document was expected.');
  }
  const xml = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;

  if (DECLARATION_PATTERN.test(xml)) {
    throw malformed('DOCTYPE and ENTITY declarations are not allowed in the XML document.');
  }

  const validation = XMLValidator.validate(xml);
  if (validation !== true) {
    const { line, col } = validation.err;
    throw malformed(`The request body is not well-formed XML (line ${line}, column ${col}).`);
  }

  let parsed: unknown;
  try {
    parsed = new XMLParser(parserOptions(limits)).parse(xml);
  } catch (error) {
    if (error instanceof XmlEntityError) throw malformed(error.message);
    if (error instanceof Error && error.message.includes('Maximum nested tags')) throw tooDeep(limits);
    throw malformed('The request body is not well-formed XML.');
  }

  // The validator lets several top-level elements through, so the single root is checked here.
  const top = parsed !== null && typeof parsed === 'object' ? Object.keys(parsed) : [];
  const rootKeys = top.filter((key) => key.startsWith(TAG_PREFIX));
  if (rootKeys.length !== 1 || top.length !== 1) {
    throw malformed('The XML document must have exactly one root element.');
  }
  const rootKey = rootKeys[0];
  const rootValue = (parsed as Record<string, unknown>)[rootKey];
  if (Array.isArray(rootValue)) {
    throw malformed('The XML document must have exactly one root element.');
  }

  const state: WalkState = { nodes: 0, limits };
  const root = convertValue(rootValue, 1, state);
  if (typeof root !== 'object' || root === null || !Object.keys(root).some((key) => key !== TEXT_NODE)) {
    throw malformed('The XML root element has no child elements.');
  }
  const children = root as Record<string, unknown>;
  delete children[TEXT_NODE];
  return children;
}

function splitRecipients(value: unknown): string[] | undefined {
  const items = Array.isArray(value) ? value : [value];
  if (!items.every((item): item is string => typeof item === 'string')) return undefined;
  return items
    .flatMap((item) => item.split(','))
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/**
 * Maps a parsed document onto the SMS send fields. `to` may be repeated, comma-separated, or
 * both, and always comes back as a trimmed string array when every part is text; anything else
 * is passed through untouched for validation to reject.
 */
export function toXmlSendRequest(doc: Record<string, unknown>): XmlSendRequest {
  const request: XmlSendRequest = {};
  const copy = (field: Exclude<keyof XmlSendRequest, 'to'>): void => {
    if (Object.prototype.hasOwnProperty.call(doc, field) && doc[field] !== undefined)
      request[field] = doc[field];
  };
  copy('from');
  if (Object.prototype.hasOwnProperty.call(doc, 'to') && doc.to !== undefined) {
    request.to = splitRecipients(doc.to) ?? doc.to;
  }
  copy('message');
  copy('source');
  copy('callback_url');
  copy('user_reference_id');
  copy('send_at');
  copy('validity_period');
  return request;
}

const XML_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

// XML 1.0 forbids most C0 controls, lone surrogates and U+FFFE/U+FFFF even as references.
const ILLEGAL_XML_CHARS =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  // A literal CR would be normalised to LF by the receiving parser; the reference survives.
  '\r': '&#13;',
};

export function escapeXmlText(value: string): string {
  return value.replace(ILLEGAL_XML_CHARS, '').replace(/[&<>"'\r]/g, (ch) => ESCAPES[ch]);
}

function assertXmlName(name: string): void {
  // Names come from code, never from requests; a bad one is a programming error.
  if (!XML_NAME.test(name) || /^xml/i.test(name)) {
    throw new Error(`Invalid XML element name: ${JSON.stringify(name)}`);
  }
}

/** Builds `<?xml …?><root><name>value</name>…</root>` with elements in the given order. */
export function buildXml(rootName: string, fields: Array<[string, string | number | boolean]>): string {
  assertXmlName(rootName);
  let body = '';
  for (const [name, value] of fields) {
    assertXmlName(name);
    body += `<${name}>${escapeXmlText(String(value))}</${name}>`;
  }
  return `<?xml version="1.0" encoding="UTF-8"?><${rootName}>${body}</${rootName}>`;
}

export function xmlSuccessBody(reference: string, recipients: string[]): string {
  return buildXml('response', [
    ['reference', reference],
    ['status', 'SUCCESS'],
    ...recipients.map((recipient): [string, string] => ['recipient', recipient]),
  ]);
}

export function xmlErrorBody(code: string, message: string, requestId?: string): string {
  const fields: Array<[string, string]> = [
    ['status', 'ERROR'],
    ['code', code],
    ['message', message],
  ];
  if (requestId !== undefined) fields.push(['request_id', requestId]);
  return buildXml('response', fields);
}
