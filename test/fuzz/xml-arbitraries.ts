import fc from 'fast-check';
import { nastyString } from './arbitraries.js';

/** Generators of hostile documents for the XML SMS endpoint (see arbitraries.ts). */

const XML_FIELDS = ['from', 'to', 'message', 'source', 'callback_url', 'user_reference_id'];

const xmlName: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...XML_FIELDS) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'request',
      '__proto__',
      'constructor',
      'prototype',
      'toString',
      'hasOwnProperty',
      '#text',
      'a:b',
      'xmlns',
      'xml-x',
    ),
  },
  { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.-]{0,8}$/) },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
);

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Element text: escaped properly, raw (may break the document), with references, or CDATA. */
const xmlTextContent: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: nastyString.map(escapeXml) },
  { weight: 1, arbitrary: nastyString },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '&amp;&lt;&gt;&quot;&apos;',
      '&#65;&#x42;',
      '&#0;',
      '&#xD800;',
      '&#x110000;',
      '&foo;',
      '& ',
      '&#99999999999999999999;',
      '&lol9;',
      '&xxe;',
    ),
  },
  { weight: 1, arbitrary: nastyString.map((s) => `<![CDATA[${s}]]>`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '<!-- c -->',
      '<!-- -- -->',
      '<?pi x?>',
      '<x/>',
      '</x>',
      '<x a="1" a="2">y</x>',
    ),
  },
);

const xmlAttributes: fc.Arbitrary<string> = fc
  .array(fc.tuple(fc.stringMatching(/^[a-z_][a-z0-9]{0,5}$/), nastyString.map(escapeXml)), { maxLength: 3 })
  .map((as) => as.map(([k, v]) => ` ${k}="${v.replace(/"/g, '&quot;')}"`).join(''));

const xmlElement: fc.Arbitrary<string> = fc.letrec<{ element: string; content: string }>((tie) => ({
  element: fc
    .tuple(xmlName, xmlAttributes, tie('content'), fc.nat(19))
    .map(([name, attrs, content, mode]) =>
      mode === 0
        ? `<${name}${attrs}/>`
        : mode === 1
          ? `<${name}${attrs}>${content}</${name}x>`
          : `<${name}${attrs}>${content}</${name}>`,
    ),
  content: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    xmlTextContent,
    fc.array(fc.oneof(tie('element'), xmlTextContent), { maxLength: 3 }).map((xs) => xs.join('')),
  ),
})).element;

const validXmlValue: Record<string, fc.Arbitrary<string>> = {
  from: fc.constantFrom('ACME', '260971234567', 'A B'),
  to: fc.constantFrom('260971234567', '260971234567,260971234568', ' 260971234567 , x ', '0971234567'),
  message: fc.oneof(fc.constantFrom('Hello', 'Muli shani'), nastyString.map(escapeXml)),
  source: fc.constantFrom('API', 'billing'),
  callback_url: fc.constantFrom(
    'https://example.com/cb?x=1&amp;y=2',
    'http://127.0.0.1/x',
    'ftp://example.com/',
    'https://localhost./',
  ),
  user_reference_id: nastyString.map(escapeXml),
};

/** A request document with the SMS fields, each missing, valid-looking, repeated, nested or hostile. */
const xmlFieldDocument: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof({ weight: 3, arbitrary: fc.constant('request') }, { weight: 1, arbitrary: xmlName }),
    fc.tuple(
      ...XML_FIELDS.map((name) =>
        fc.option(
          fc
            .tuple(
              fc.oneof(
                { weight: 10, arbitrary: validXmlValue[name] },
                { weight: 2, arbitrary: xmlTextContent },
                { weight: 1, arbitrary: xmlElement },
              ),
              fc.nat(19),
            )
            .map(([v, repeat]) =>
              `<${name}>${v}</${name}>`.repeat(name === 'to' ? 1 + (repeat % 3) : repeat === 0 ? 2 : 1),
            ),
          { nil: undefined, freq: name === 'callback_url' || name === 'user_reference_id' ? 2 : 8 },
        ),
      ),
    ),
    fc.option(fc.array(xmlElement, { minLength: 1, maxLength: 2 }), { nil: [], freq: 4 }),
    fc.constantFrom(
      '',
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<?xml version="1.1"?>',
      '\ufeff',
      '<?xml version="1.0" encoding="UTF-16"?>',
      '<!-- hi -->',
    ),
  )
  .map(
    ([root, fields, extras, prolog]) =>
      `${prolog}<${root}>${[...fields.filter((f) => f !== undefined), ...extras].join('')}</${root}>`,
  );

const BILLION_LAUGHS =
  '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' +
  Array.from(
    { length: 9 },
    (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`,
  ).join('') +
  ']><request><from>ACME</from><to>260971234567</to><message>&lol9;</message><source>API</source></request>';

/** Entity expansion, external entities and the other classic XML attacks. */
export const xmlAttack: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    BILLION_LAUGHS,
    '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><request><from>ACME</from><to>260971234567</to><message>&xxe;</message><source>API</source></request>',
    '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "http://127.0.0.1:1/x">]><request><message>&xxe;</message></request>',
    '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY % p SYSTEM "http://127.0.0.1:1/evil.dtd"> %p;]><request/>',
    '<?xml version="1.0"?><!DOCTYPE request SYSTEM "http://127.0.0.1:1/x.dtd"><request><from>A</from></request>',
    '<!doctype request><request><from>ACME</from></request>',
    '<! DOCTYPE request><request/>',
    '<request><!ENTITY x "y"><from>ACME</from></request>',
    '<?xml-stylesheet href="http://127.0.0.1:1/x.xsl"?><request><from>ACME</from><to>260971234567</to><message>x</message><source>API</source></request>',
    '<request xmlns:xi="http://www.w3.org/2001/XInclude"><from>ACME</from><to>260971234567</to><message><xi:include href="file:///etc/passwd" parse="text"/></message><source>API</source></request>',
    '<request><from>ACME</from><to>260971234567</to><message>&#x26;lol;</message><source>API</source></request>',
    '<request>' + '<to>260971234567</to>'.repeat(20_001) + '</request>',
    '<request>' + '<x/>'.repeat(50_000) + '</request>',
    '',
    '   ',
    '<request></request>',
    '<request>text only</request>',
    '<a/><b/>',
    '{"from":"ACME","to":"260971234567","message":"x","source":"API"}',
  ),
  fc
    .constantFrom(9, 10, 100, 10_000, 100_000)
    .map((n) => `<request>${'<a>'.repeat(n)}x${'</a>'.repeat(n)}</request>`),
  fc
    .constantFrom(1000, 20_000, 60_000)
    .map(
      (n) =>
        `<request ${Array.from({ length: n }, (_, i) => `a${i}="${i}"`).join(' ')}><from>ACME</from></request>`,
    ),
  fc
    .constantFrom(1000, 20_000)
    .map(
      (n) =>
        `<request><from ${Array.from({ length: n }, (_, i) => `b${i}='x'`).join(' ')}>ACME</from></request>`,
    ),
);

/** Everything the XML endpoint may be sent, as text. */
export const xmlBodyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 10, arbitrary: xmlFieldDocument },
  { weight: 1, arbitrary: xmlElement },
  { weight: 2, arbitrary: xmlAttack },
);

/** Content-Type headers the XML endpoint may be sent (it reads XML whatever they say). */
export const xmlContentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 3, arbitrary: fc.constant('application/xml') },
  { weight: 2, arbitrary: xmlOtherContentType() },
);

function xmlOtherContentType(): fc.Arbitrary<string | undefined> {
  return fc.constantFrom(
    'application/xml',
    'text/xml',
    'application/json',
    'text/plain',
    'application/xml; charset=utf-16',
    'application/xml; charset=latin1',
    'application/octet-stream',
    'multipart/form-data; boundary=x',
    '',
    undefined,
  );
}
