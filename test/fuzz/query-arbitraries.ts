import fc from 'fast-check';
import { nastyString } from './arbitraries.js';

/** Generators of hostile paths and query strings for GET /api/v1/json/messages (see arbitraries.ts). */

/** Percent-encodes the UTF-8 bytes (encodeURIComponent throws on a lone surrogate). */
export function pctEncode(s: string): string {
  let out = '';
  for (const byte of Buffer.from(s, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** A path segment for GET /api/v1/json/messages/:id, already in URL form. */
export function messageIdSegment(real: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...real) },
    { weight: 3, arbitrary: nastyString.filter((s) => s !== '').map((s) => pctEncode(s)) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '%',
        '%zz',
        '%00',
        '%2e%2e',
        '..',
        '%2F',
        '1%20OR%201=1',
        '99999999999999999999',
        '1e5',
        '-1',
        '0',
        '01a200fe-0dfd-7511-ad60-13d93139bcee',
        'x'.repeat(5000),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 30 }).map((s) => pctEncode(s)),
    },
  );
}

/** A query string for GET /api/v1/json/messages: known names with hostile values, odd names, repeats. */
export function messageListQuery(realReferences: string[]): fc.Arbitrary<string> {
  const value = fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...realReferences) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '1',
        '0',
        '-1',
        '2',
        '1000',
        '1001',
        '99999999999999999999',
        '9007199254740993',
        '1e3',
        '0x10',
        ' 1',
        '1.5',
        '',
      ),
    },
    { weight: 2, arbitrary: nastyString },
  );
  const name = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('api_reference', 'page', 'per_page') },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        'cursor',
        'limit',
        'status',
        'channel',
        'recipient',
        'user_reference_id',
        'created_from',
        'created_to',
      ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'api_reference[]',
        'page[__proto__]',
        '__proto__',
        '__proto__[x]',
        'constructor[prototype][x]',
        'per_page[0]',
      ),
    },
  );
  return fc
    .array(fc.tuple(name, value, fc.boolean()), { maxLength: 5 })
    .map((pairs) =>
      pairs
        .map(([k, v, raw]) => `${pctEncode(k)}=${raw ? v.replace(/[^A-Za-z0-9%_.-]/g, '') : pctEncode(v)}`)
        .join('&'),
    );
}
