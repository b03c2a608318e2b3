import fc from 'fast-check';

/**
 * Generators of hostile request bodies, shared by test/e2e/fuzz.e2e-spec.ts (`npm test`, fixed
 * seed) and `npm run fuzz` (many more runs, random seed). JSON is built as text, not with
 * JSON.stringify of objects, so bodies can carry duplicate keys, `__proto__` keys, number
 * literals JavaScript cannot hold (1e400, 30 digits) and nesting no object graph would survive.
 * XML documents: xml-arbitraries.ts; paths and query strings: query-arbitraries.ts.
 */

/** The key a pollution payload tries to plant on Object.prototype. */
export const POLLUTION_MARK = 'fuzzPolluted';

/** SQL metacharacters and friends: they must travel and be stored verbatim (injection suite too). */
export const SQL_METACHARS = [
  "'; DROP TABLE messages; --",
  '" OR 1=1 --',
  "' OR '1'='1",
  'back\\slash \\\\ \\\' \\"',
  '100% _match_ %%',
  '\u2018smart\u2019 \u201cquotes\u201d \u02bcmodifier\u02bc \uff07fullwidth\uff07',
  "admin'/*",
  '1; SELECT SLEEP(5)',
  "x' UNION SELECT password_hash FROM accounts --",
];

const NASTY_STRINGS = [
  ...SQL_METACHARS,
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\u0007\u001b[31mred\u001b[0m',
  'line\r\nBcc: victim@example.com',
  '\ud800',
  '\udfff',
  'a\ud83d',
  '\ufeffBOM',
  '\u202eevil\u202c',
  '\u2028\u2029',
  '\uffff\ufffe',
  'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇',
  '😀👍🏽👨‍👩‍👧',
  '${7*7}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  ']]><x>',
  '&amp;&lt;&#0;&#xD800;',
  '../../../etc/passwd',
  'javascript:alert(1)',
  '260971234567',
  ' 260971234567 ',
  '+260 (97) 123-4567',
  '00260971234567',
  '0971234567',
  'jane@example.com',
  'JANE@EXAMPLE.COM',
  '1e309',
  'NaN',
  'Infinity',
  'null',
  'true',
  '0',
  '-1',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  'toString',
];

/** Strings that have broken parsers, validators, encoders and SQL before. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  {
    weight: 1,
    arbitrary: fc.string({
      unit: fc.constantFrom(
        '\u0000',
        '\u0001',
        '\u001f',
        '\u007f',
        '\u0085',
        '\u00a0',
        '\u2028',
        '\ufeff',
        '\uffff',
        '\ud800',
        '\udc00',
        '\u202e',
        "'",
        '"',
        '\\',
        '%',
        '_',
      ),
      maxLength: 12,
    }),
  },
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 1, arbitrary: fc.constantFrom(256, 321, 2049, 70_000).map((n) => 'x'.repeat(n)) },
);

/** A JSON string literal (JSON.stringify escapes control characters and lone surrogates). */
export const jsonString = (s: string): string => JSON.stringify(s);

const numberText: fc.Arbitrary<string> = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
  fc.constantFrom(
    '1e400',
    '-1e400',
    '-0',
    '0',
    '260971234567',
    '12345678901234567890123456789',
    '1E+2',
    '4.9e-324',
    '0.1',
    '9007199254740993',
  ),
);

const scalarText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: nastyString.map(jsonString) },
  { weight: 2, arbitrary: numberText },
  { weight: 1, arbitrary: fc.constantFrom('true', 'false', 'null') },
);

const dangerousKeys = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__defineGetter__',
  'length',
  'then',
];

const keyText: fc.Arbitrary<string> = fc
  .oneof(
    { weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
    { weight: 2, arbitrary: fc.constantFrom(...dangerousKeys) },
  )
  .map(jsonString);

/** Payloads that would set Object.prototype[POLLUTION_MARK] if anything merged them naively. */
export const pollutionText: fc.Arbitrary<string> = fc.constantFrom(
  `{"__proto__":{"${POLLUTION_MARK}":true}}`,
  `{"constructor":{"prototype":{"${POLLUTION_MARK}":true}}}`,
  `{"prototype":{"${POLLUTION_MARK}":true}}`,
  `{"__proto__":{"__proto__":{"${POLLUTION_MARK}":true}}}`,
  `[{"__proto__":{"${POLLUTION_MARK}":true}}]`,
  `{"__proto__":{"toString":"x","${POLLUTION_MARK}":true}}`,
);

const pollutionEntry: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('__proto__', 'constructor', 'prototype'),
    fc.oneof(pollutionText, fc.constant(`{"${POLLUTION_MARK}":true}`)),
  )
  .map(([k, v]) => `${jsonString(k)}:${v}`);

/** Any JSON value as text, a few levels deep, with hostile keys and strings. */
export const jsonValueText: fc.Arbitrary<string> = fc.letrec<{
  value: string;
  array: string;
  object: string;
}>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalarText,
    tie('array'),
    tie('object'),
    pollutionText,
  ),
  array: fc.array(tie('value'), { maxLength: 4 }).map((xs) => `[${xs.join(',')}]`),
  object: fc
    .array(fc.tuple(keyText, tie('value')), { maxLength: 4 })
    .map((es) => `{${es.map(([k, v]) => `${k}:${v}`).join(',')}}`),
})).value;

/** A value of the wrong type for a field, or a hostile one of the right type. */
const hostileValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: jsonValueText },
  { weight: 2, arbitrary: nastyString.map(jsonString) },
  { weight: 1, arbitrary: pollutionText },
  { weight: 1, arbitrary: fc.constantFrom('[]', '{}', '[[]]', '[null]', '[{}]', '""', 'null') },
);

export type FieldSpec = Record<string, fc.Arbitrary<string>>;

/**
 * A JSON object body for an endpoint: each known field is missing, valid-looking (mostly) or
 * hostile; then maybe a few extra entries, some of them prototype-pollution keys, and now and
 * then a repeat of a known field (JSON.parse keeps the last). `rare` fields (older aliases,
 * optional extras) are usually left out, so that enough bodies get deep into the pipeline.
 */
export function objectBodyText(fields: FieldSpec, rare: string[] = []): fc.Arbitrary<string> {
  const names = Object.keys(fields);
  const entries = names.map((name) => {
    const entry = fc
      .oneof({ weight: 12, arbitrary: fields[name] }, { weight: 1, arbitrary: hostileValue })
      .map((v) => `${jsonString(name)}:${v}`);
    const [absent, present] = rare.includes(name) ? [3, 1] : [1, 7];
    return fc.oneof(
      { weight: absent, arbitrary: fc.constant(undefined) },
      { weight: present, arbitrary: entry },
    );
  });
  const extra = fc.oneof(
    { weight: 3, arbitrary: fc.tuple(keyText, jsonValueText).map(([k, v]) => `${k}:${v}`) },
    { weight: 3, arbitrary: pollutionEntry },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constantFrom(...names), hostileValue).map(([k, v]) => `${jsonString(k)}:${v}`),
    },
  );
  return fc
    .tuple(
      fc.tuple(...entries),
      fc.option(fc.array(extra, { minLength: 1, maxLength: 3 }), { nil: [], freq: 2 }),
      fc.boolean(),
    )
    .map(([known, extras, extrasFirst]) => {
      const present = known.filter((e): e is string => e !== undefined);
      return `{${(extrasFirst ? [...extras, ...present] : [...present, ...extras]).join(',')}}`;
    });
}

/** Nesting far past any sane limit (and just around ours), as a whole body or inside a field. */
export function deepJsonText(fieldName: string): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.constantFrom(31, 32, 33, 64, 1000, 10_000, 100_000),
      fc.constantFrom('array', 'object', 'field-array', 'field-object', 'mixed'),
    )
    .map(([depth, shape]) => {
      const arrays = '['.repeat(depth) + ']'.repeat(depth);
      const objects = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
      switch (shape) {
        case 'array':
          return arrays;
        case 'object':
          return objects;
        case 'field-array':
          return `{${jsonString(fieldName)}:${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
        case 'field-object':
          return `{${jsonString(fieldName)}:${'{"__proto__":'.repeat(depth - 1)}1${'}'.repeat(depth - 1)}}`;
        default:
          return '{"a":['.repeat(depth) + ']}'.repeat(depth);
      }
    });
}

/** Large arrays for a recipient field: empty, 10,000 elements of one kind, or one over the cap. */
export function bigArrayBodyText(base: Record<string, string>, field: string): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.constantFrom(0, 1, 10_000, 10_001),
      // One repeated valid number is deduplicated to one message: 10,000 elements stay cheap.
      fc.constantFrom('"x"', '1', 'null', '[]', '{}', '"260971234567"', '"jane@example.com"', '""'),
    )
    .map(([n, item]) => {
      const rest = Object.entries(base).map(([k, v]) => `${jsonString(k)}:${v}`);
      return `{${[...rest, `${jsonString(field)}:[${new Array(n).fill(item).join(',')}]`].join(',')}}`;
    });
}

/** Byte sequences that are not UTF-8 (overlong, surrogate halves, past U+10FFFF, cut short), raw controls. */
const BAD_BYTES: number[][] = [
  [0xff],
  [0xfe, 0xff],
  [0xc0, 0xaf],
  [0xc3, 0x28],
  [0xe2, 0x28, 0xa1],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0x80],
  [0xf0, 0x9f, 0x98],
  [0x00],
  [0x0b],
  [0x1b],
  [0xef, 0xbb, 0xbf],
];

/** A text mangled at a random place: invalid bytes inserted, or cut short. */
function corrupted(text: fc.Arbitrary<string>): fc.Arbitrary<Buffer> {
  return fc
    .tuple(text, fc.nat(), fc.option(fc.constantFrom(...BAD_BYTES), { nil: undefined, freq: 5 }))
    .map(([t, at, bad]) => {
      const b = Buffer.from(t, 'utf8');
      const i = b.length === 0 ? 0 : at % (b.length + 1);
      return bad === undefined
        ? b.subarray(0, i)
        : Buffer.concat([b.subarray(0, i), Buffer.from(bad), b.subarray(i)]);
    });
}

/** Mostly the structured text, sometimes corrupted, sometimes random bytes. */
export function rawBody(text: fc.Arbitrary<string>): fc.Arbitrary<Buffer> {
  return fc.oneof(
    { weight: 14, arbitrary: text.map((t) => Buffer.from(t, 'utf8')) },
    { weight: 2, arbitrary: corrupted(text) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 600 }).map((u) => Buffer.from(u)) },
  );
}

/** Content-Type headers a JSON endpoint may be sent; undefined = no header at all. */
export const jsonContentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 24, arbitrary: fc.constant('application/json') },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/json; charset=utf-16le',
      'application/json; charset=latin1',
      'application/json; charset=bogus',
      'application/json;;;',
      'text/plain',
      'application/xml',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=xyz',
      'application/vnd.api+json',
      '*/*',
      'a/b/c',
      '',
      undefined,
    ),
  },
);

/** Content-Encoding: mostly none; else a name the server may or may not know, over plain bytes. */
export const contentEncoding: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 15, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-unknown', 'gzip, gzip') },
);
