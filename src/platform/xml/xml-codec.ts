import { SaxesParser } from 'saxes';

/**
 * XML codec of the XML SMS endpoint.
 *
 * Reading is deliberately narrow: any DOCTYPE or ENTITY declaration is refused outright, only the
 * five predefined XML entities and numeric character references are decoded, and nesting,
 * element and attribute counts are capped, so entity expansion (billion laughs, XXE) and
 * oversized trees are impossible rather than merely limited.
 *
 * The document is read by a streaming parser (saxes) whose events are counted as they come: the
 * first element past the limits stops the parse there, so a refused document costs what was
 * read up to its first breach, never the whole text. The parse is linear in the text (about
 * 30–100 MB/s here); a tree-building parser read a 10,000-recipient document at well under
 * 1 MB/s and a root with 60,000 attributes in over a second, on the event loop.
 */

export interface XmlLimits {
  maxDepth: number;
  maxNodes: number;
  /** Attributes on any one element (they are ignored, so only a handful are ever needed). */
  maxAttributes: number;
}

/**
 * 20,000 elements: a 10,000-recipient send with one `<to>` each is 10,005 elements (root
 * included). Eight levels: the documented shape needs two. Eight attributes: a namespace or
 * two and a version, which are ignored.
 */
export const DEFAULT_XML_LIMITS: Readonly<XmlLimits> = Object.freeze({
  maxDepth: 8,
  maxNodes: 20_000,
  maxAttributes: 8,
});

export interface XmlSendRequest {
  from?: unknown;
  to?: string[] | unknown;
  message?: unknown;
  source?: unknown;
  callback_url?: unknown;
  user_reference_id?: unknown;
  send_at?: unknown;
  validity_period?: unknown;
  shorten_links?: unknown;
}

// Checked on the raw text so a declaration is refused before any parser sees it, whatever its
// case or the whitespace after `<!`.
const DECLARATION_PATTERN = /<!\s*(?:DOCTYPE|ENTITY)/i;

// These names would reach Object.prototype through an ordinary assignment; they are dropped even
// though the result objects have no prototype, so nothing downstream can copy them onwards.
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

const TEXT_NODE = '#text';

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

/** One open element: its text so far and its child elements (null until it has one). */
interface Open {
  name: string;
  text: string;
  children: Record<string, unknown> | null;
}

/** A value as the fields read it: text, or the child elements (with `#text` for mixed content). */
function valueOf(element: Open): unknown {
  const text = element.text.trim();
  if (!element.children) return text;
  if (text !== '') element.children[TEXT_NODE] = text;
  return element.children;
}

function addChild(parent: Open, name: string, value: unknown): void {
  if (FORBIDDEN_KEYS.has(name)) return;
  const children = (parent.children ??= Object.create(null) as Record<string, unknown>);
  // Repeated elements become an array in document order.
  if (!Object.prototype.hasOwnProperty.call(children, name)) children[name] = value;
  else if (Array.isArray(children[name])) (children[name] as unknown[]).push(value);
  else children[name] = [children[name], value];
}

/** saxes' messages start with `line:column: `; ours say where in words. */
function wellFormedError(err: Error, parser: SaxesParser): MalformedXmlError {
  const reason = err.message.replace(/^[^:]*:\d+:\d+: /, '');
  const at = `(line ${parser.line}, column ${parser.column})`;
  if (/undefined entity/.test(reason))
    return malformed(
      `The XML text uses an undeclared entity ${at}; only &lt; &gt; &amp; &quot; &apos; are known.`,
    );
  if (/only one root/.test(reason)) return malformed('The XML document must have exactly one root element.');
  return malformed(`The request body is not well-formed XML ${at}: ${reason.replace(/\.$/, '')}.`);
}

/**
 * Parses an XML document of any root element name and returns the root's children as a
 * null-prototype object: text as strings, repeated elements as arrays. Throws
 * `MalformedXmlError` (MALFORMED_BODY) for anything that is not a small, plain, well-formed
 * document, at the first element, attribute or level past `limits`.
 */
export function parseXmlDocument(
  text: string,
  limits: Partial<XmlLimits> = DEFAULT_XML_LIMITS,
): Record<string, unknown> {
  const { maxDepth, maxNodes, maxAttributes } = { ...DEFAULT_XML_LIMITS, ...limits };
  if (typeof text !== 'string' || text.trim() === '') {
    throw malformed('The request body is empty; an XML document was expected.');
  }
  const xml = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (DECLARATION_PATTERN.test(xml)) {
    throw malformed('DOCTYPE and ENTITY declarations are not allowed in the XML document.');
  }

  const parser = new SaxesParser({ xmlns: false, position: true });
  const stack: Open[] = [];
  let root: Open | undefined;
  let nodes = 0;
  let attributes = 0;
  parser.on('error', (err) => {
    throw err instanceof MalformedXmlError ? err : wellFormedError(err, parser);
  });
  parser.on('doctype', () => {
    throw malformed('DOCTYPE and ENTITY declarations are not allowed in the XML document.');
  });
  parser.on('opentagstart', (tag) => {
    nodes += 1;
    if (nodes > maxNodes) throw malformed(`The XML document has more than ${maxNodes} elements.`);
    if (stack.length + 1 > maxDepth)
      throw malformed(`The XML document is nested more than ${maxDepth} levels deep.`);
    if (root && stack.length === 0) throw malformed('The XML document must have exactly one root element.');
    attributes = 0;
    stack.push({ name: tag.name, text: '', children: null });
    if (!root) root = stack[0];
  });
  parser.on('attribute', () => {
    attributes += 1;
    if (attributes > maxAttributes) {
      const name = stack[stack.length - 1]?.name ?? '';
      throw malformed(`The XML element <${name}> has more than ${maxAttributes} attributes.`);
    }
  });
  const addText = (t: string) => {
    const open = stack[stack.length - 1];
    if (open) open.text += t;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    const element = stack.pop()!;
    const parent = stack[stack.length - 1];
    if (parent) addChild(parent, element.name, valueOf(element));
  });
  parser.write(xml).close();

  if (!root?.children || !Object.keys(root.children).some((key) => key !== TEXT_NODE)) {
    throw malformed('The XML root element has no child elements.');
  }
  delete root.children[TEXT_NODE];
  return root.children;
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
  copy('shorten_links');
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
