import { describe, expect, it } from 'vitest';

import {
  buildXml,
  MalformedXmlError,
  parseXmlDocument,
  toXmlSendRequest,
  xmlErrorBody,
  xmlSuccessBody,
} from './xml-codec.js';

const DECL = '<?xml version="1.0" encoding="UTF-8"?>';

function expectMalformed(run: () => unknown, message?: RegExp): void {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(MalformedXmlError);
  const error = thrown as MalformedXmlError;
  expect(error.code).toBe('MALFORMED_BODY');
  expect(error.status).toBe(400);
  expect(error.message).toMatch(/\.$/);
  if (message) expect(error.message).toMatch(message);
}

function nested(depth: number): string {
  // `depth` counts the root element; the innermost element holds the text.
  let xml = '<v>x</v>';
  for (let level = depth - 1; level >= 1; level -= 1) xml = `<l${level}>${xml}</l${level}>`;
  return xml;
}

describe('parseXmlDocument', () => {
  it.each(['request', 'sms', 'Envelope'])(
    'accepts any root element name (<%s>) and returns its children',
    (root) => {
      const doc = parseXmlDocument(
        `${DECL}<${root}><from>ACME</from><to>254700000001</to><message>Hello</message><source>api</source></${root}>`,
      );
      expect({ ...doc }).toEqual({ from: 'ACME', to: '254700000001', message: 'Hello', source: 'api' });
    },
  );

  it('returns a null-prototype object', () => {
    const doc = parseXmlDocument('<request><from>A</from></request>');
    expect(Object.getPrototypeOf(doc)).toBeNull();
  });

  it('turns repeated elements into an array of strings in document order', () => {
    const doc = parseXmlDocument('<request><to>1</to><to>2</to><to>3</to></request>');
    expect(doc.to).toEqual(['1', '2', '3']);
  });

  it('keeps leading zeros and digits exactly as sent: values are never parsed as numbers', () => {
    const doc = parseXmlDocument(
      '<request><to>0712345678</to><user_reference_id>00123</user_reference_id><n>1e5</n></request>',
    );
    expect(doc.to).toBe('0712345678');
    expect(doc.user_reference_id).toBe('00123');
    expect(doc.n).toBe('1e5');
  });

  it.each([
    ['Tom &amp; Jerry', 'Tom & Jerry'],
    ['&lt;b&gt; &quot;q&quot; &apos;a&apos;', '<b> "q" \'a\''],
    ['&#65;&#x42;&#x1F600;', 'AB\u{1F600}'],
    ['&amp;lt;', '&lt;'],
  ])('decodes the standard XML escapes and character references: %s', (encoded, decoded) => {
    expect(parseXmlDocument(`<request><message>${encoded}</message></request>`).message).toBe(decoded);
  });

  it('returns CDATA content as literal text without decoding it', () => {
    const doc = parseXmlDocument('<request><message><![CDATA[a < b && c &amp; d]]></message></request>');
    expect(doc.message).toBe('a < b && c &amp; d');
  });

  it('returns an empty element as an empty string', () => {
    expect(parseXmlDocument('<request><callback_url/><from></from></request>')).toMatchObject({
      callback_url: '',
      from: '',
    });
  });

  it('ignores attributes, comments and the XML declaration', () => {
    const doc = parseXmlDocument(
      `${DECL}<!-- c --><request id="1"><from lang="en">A</from><!-- c --></request>`,
    );
    expect({ ...doc }).toEqual({ from: 'A' });
  });

  it('accepts a leading byte-order mark', () => {
    expect(parseXmlDocument('\uFEFF<request><from>A</from></request>').from).toBe('A');
  });

  it.each(['', '   ', '\n\t'])('refuses an empty body (%j)', (body) => {
    expectMalformed(() => parseXmlDocument(body), /empty/);
  });

  it.each([
    ['an unclosed element', '<request><from>A</request>'],
    ['plain text', 'hello'],
    ['JSON', '{"from":"A"}'],
    ['trailing text after the root', '<request><from>A</from></request>junk'],
    ['two root elements', '<request><from>A</from></request><other><a>1</a></other>'],
    ['a bare ampersand', '<request><message>Tom & Jerry</message></request>'],
    ['an undeclared named entity', '<request><message>&nbsp;x</message></request>'],
    ['a reference to an illegal character', '<request><message>&#0;</message></request>'],
    ['an uppercase hex reference', '<request><message>&#X41;</message></request>'],
  ])('refuses a document that is not well-formed: %s', (_label, body) => {
    expectMalformed(() => parseXmlDocument(body));
  });

  it.each([
    ['self-closing root', '<request/>'],
    ['text-only root', '<request>hello</request>'],
    ['empty root', '<request></request>'],
  ])('refuses a root element without child elements: %s', (_label, body) => {
    expectMalformed(() => parseXmlDocument(body), /no child elements/);
  });

  it.each([
    ['<!DOCTYPE request><request><from>A</from></request>'],
    ['<!doctype request [<!ELEMENT request ANY>]><request><from>A</from></request>'],
    ['<?xml version="1.0"?>\n<!DocType request SYSTEM "request.dtd"><request><from>A</from></request>'],
  ])('refuses any DOCTYPE declaration, whatever its case: %s', (body) => {
    expectMalformed(() => parseXmlDocument(body), /DOCTYPE/);
  });

  it('refuses ENTITY declarations, so a billion-laughs document is never expanded', () => {
    const body = `<?xml version="1.0"?>
<!DOCTYPE lolz [
  <!ENTITY lol "lol">
  <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<request><message>&lol3;</message></request>`;
    expectMalformed(() => parseXmlDocument(body), /DOCTYPE and ENTITY/);
  });

  it('refuses a stray ENTITY declaration even without a DOCTYPE around it', () => {
    expectMalformed(() => parseXmlDocument('<!entity x "y"><request><from>&x;</from></request>'), /ENTITY/);
  });

  it('refuses an XXE document naming file:///etc/passwd; external entities are never resolved', () => {
    const body = `<?xml version="1.0"?>
<!DOCTYPE request [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<request><from>A</from><message>&xxe;</message></request>`;
    expectMalformed(() => parseXmlDocument(body), /DOCTYPE and ENTITY/);
  });

  it('refuses a reference to an entity that was never declared instead of resolving it', () => {
    expectMalformed(
      () => parseXmlDocument('<request><message>&xxe;</message></request>'),
      /undeclared entity/,
    );
  });

  it('accepts a document exactly at the depth limit', () => {
    const doc = parseXmlDocument(nested(8));
    expect(doc.l2).toBeDefined();
  });

  it.each([9, 10, 50, 5_000])('refuses nesting deeper than the limit (%i levels)', (depth) => {
    expectMalformed(() => parseXmlDocument(nested(depth)), /nested more than 8 levels/);
  });

  it('refuses a self-closing element one level past the depth limit', () => {
    const body = nested(8).replace('<v>x</v>', '<v><w/></v>');
    expectMalformed(() => parseXmlDocument(body), /nested more than 8 levels/);
  });

  it('applies caller-supplied limits', () => {
    expectMalformed(() => parseXmlDocument(nested(3), { maxDepth: 2, maxNodes: 100 }), /2 levels/);
    expect(() => parseXmlDocument(nested(3), { maxDepth: 3, maxNodes: 3 })).not.toThrow();
  });

  it('refuses a document with more elements than the node limit (root included)', () => {
    const within = `<request>${'<to>1</to>'.repeat(19_999)}</request>`;
    expect(parseXmlDocument(within).to).toHaveLength(19_999);
    const over = `<request>${'<to>1</to>'.repeat(20_000)}</request>`;
    expectMalformed(() => parseXmlDocument(over), /more than 20000 elements/);
  });

  it('takes up to 8 attributes on an element and refuses the 9th, on the root as on any child', () => {
    const attrs = (n: number) => Array.from({ length: n }, (_, i) => ` a${i}="${i}"`).join('');
    expect(parseXmlDocument(`<request${attrs(8)}><from${attrs(8)}>A</from></request>`).from).toBe('A');
    expectMalformed(
      () => parseXmlDocument(`<request${attrs(9)}><from>A</from></request>`),
      /<request> has more than 8 attributes/,
    );
    expectMalformed(
      () => parseXmlDocument(`<request><from${attrs(9)}>A</from></request>`),
      /<from> has more than 8 attributes/,
    );
  });

  it('stops at the first breach: a root with 60,000 attributes is refused before the rest is read', () => {
    // The document is not even well-formed past the 9th attribute: only reaching its end would show it.
    const body = `<request${Array.from({ length: 60_000 }, (_, i) => ` a${i}="1"`).join('')} <<<`;
    expectMalformed(() => parseXmlDocument(body), /more than 8 attributes/);
    const elements = `<request>${'<to>1</to>'.repeat(20_000)}<<<`;
    expectMalformed(() => parseXmlDocument(elements), /more than 20000 elements/);
  });

  it.each(['__proto__', 'constructor', 'prototype'])(
    'drops a <%s> element so Object.prototype is never polluted',
    (name) => {
      const doc = parseXmlDocument(
        `<request><from>A</from><${name}><polluted>yes</polluted></${name}><${name}/></request>`,
      );
      expect(Object.keys(doc)).toEqual(['from']);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
    },
  );

  it('drops __proto__ elements nested below the root as well', () => {
    const doc = parseXmlDocument(
      '<request><a><__proto__><polluted>yes</polluted></__proto__><b>1</b></a></request>',
    );
    expect({ ...(doc.a as object) }).toEqual({ b: '1' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps element names that shadow Object.prototype methods under their own name', () => {
    const doc = parseXmlDocument(
      '<request><toString>a</toString><hasOwnProperty>b</hasOwnProperty></request>',
    );
    expect({ ...doc }).toEqual({ toString: 'a', hasOwnProperty: 'b' });
  });
});

describe('toXmlSendRequest', () => {
  const parse = (children: string) => toXmlSendRequest(parseXmlDocument(`<request>${children}</request>`));

  it('maps the documented fields and leaves them as they came', () => {
    const request = parse(
      '<from>ACME</from><to>1</to><message>Hi</message><source>api</source><callback_url>https://x.test/cb</callback_url><user_reference_id>007</user_reference_id><extra>z</extra>',
    );
    expect(request).toEqual({
      from: 'ACME',
      to: ['1'],
      message: 'Hi',
      source: 'api',
      callback_url: 'https://x.test/cb',
      user_reference_id: '007',
    });
  });

  it('omits fields that are absent', () => {
    expect(parse('<from>A</from>')).toEqual({ from: 'A' });
  });

  it('collects repeated <to> elements into a list', () => {
    expect(parse('<to>0711</to><to>0722</to>').to).toEqual(['0711', '0722']);
  });

  it('splits a comma-separated <to> into a list', () => {
    expect(parse('<to>0711,0722,0733</to>').to).toEqual(['0711', '0722', '0733']);
  });

  it('accepts repeated and comma-separated <to> mixed together, in order', () => {
    expect(parse('<to>0711,0722</to><to>0733</to><to>0744, 0755</to>').to).toEqual([
      '0711',
      '0722',
      '0733',
      '0744',
      '0755',
    ]);
  });

  it('trims whitespace around each recipient and drops empty items', () => {
    expect(parse('<to>  0711 ,\n 0722\t,, , </to><to>   </to><to/>').to).toEqual(['0711', '0722']);
  });

  it('passes a <to> with nested elements through unchanged for validation to reject', () => {
    const request = parse('<to><n>1</n></to>');
    expect(Array.isArray(request.to)).toBe(false);
    expect({ ...(request.to as object) }).toEqual({ n: '1' });
  });

  it('leaves a repeated non-recipient field as an array for validation to reject', () => {
    expect(parse('<from>A</from><from>B</from>').from).toEqual(['A', 'B']);
  });
});

describe('buildXml', () => {
  it('writes the declaration, the given root and the fields in the given order, repeats included', () => {
    expect(
      buildXml('reply', [
        ['b', 'x'],
        ['a', 1],
        ['b', true],
      ]),
    ).toBe(`${DECL}<reply><b>x</b><a>1</a><b>true</b></reply>`);
  });

  it('escapes the five XML special characters', () => {
    expect(buildXml('response', [['message', `a & b < c > d " e ' f`]])).toBe(
      `${DECL}<response><message>a &amp; b &lt; c &gt; d &quot; e &apos; f</message></response>`,
    );
  });

  it('strips characters that XML 1.0 does not allow', () => {
    expect(buildXml('response', [['message', 'a\u0000b\u0008c\u000Bd\uFFFEe\uD800f\ttab']])).toBe(
      `${DECL}<response><message>abcdef\ttab</message></response>`,
    );
  });

  it('round-trips special characters, CR, emoji and leading zeros through parseXmlDocument', () => {
    const message = `Tom & Jerry <say> "hi" 'there' ]]> \r\nline 😀 &amp;`;
    const xml = buildXml('response', [
      ['message', message],
      ['to', '0711'],
      ['to', '0722'],
    ]);
    const doc = parseXmlDocument(xml);
    expect(doc.message).toBe(message);
    expect(doc.to).toEqual(['0711', '0722']);
  });

  it.each(['', '1abc', 'a b', 'a<b', 'xmlThing'])(
    'refuses an invalid element name (%j) as a programming error',
    (name) => {
      expect(() => buildXml(name, [])).toThrow(/Invalid XML element name/);
      expect(() => buildXml('response', [[name, 'x']])).toThrow(/Invalid XML element name/);
    },
  );
});

describe('xmlSuccessBody / xmlErrorBody', () => {
  it('answers success with the reference, SUCCESS and one <recipient> per recipient', () => {
    expect(xmlSuccessBody('1234567890', ['254700000001', '254700000002'])).toBe(
      `${DECL}<response><reference>1234567890</reference><status>SUCCESS</status>` +
        '<recipient>254700000001</recipient><recipient>254700000002</recipient></response>',
    );
  });

  it('answers an error with status, code, message and request id', () => {
    expect(xmlErrorBody('MALFORMED_BODY', 'Bad <xml> & such.', 'req-1')).toBe(
      `${DECL}<response><status>ERROR</status><code>MALFORMED_BODY</code>` +
        '<message>Bad &lt;xml&gt; &amp; such.</message><request_id>req-1</request_id></response>',
    );
  });

  it('leaves out <request_id> when none is given', () => {
    expect(xmlErrorBody('NOT_FOUND', 'Nothing here.')).toBe(
      `${DECL}<response><status>ERROR</status><code>NOT_FOUND</code><message>Nothing here.</message></response>`,
    );
  });

  it('produces bodies that parseXmlDocument reads back', () => {
    const doc = parseXmlDocument(xmlErrorBody('VALIDATION_ERROR', 'A & B', 'r'));
    expect({ ...doc }).toEqual({
      status: 'ERROR',
      code: 'VALIDATION_ERROR',
      message: 'A & B',
      request_id: 'r',
    });
  });
});
