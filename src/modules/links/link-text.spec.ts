import { describe, expect, it } from 'vitest';
import { CODE_LENGTH, CODE_PATTERN, linkTemplate, newLinkCode, stampLinks } from './link-text.js';

const BASE = 'https://s.acme.example/l';

describe('link-text', () => {
  it('finds http and https links, leaving sentence punctuation and unopened brackets outside', () => {
    const t = linkTemplate(
      'Pay at https://pay.acme.example/inv?id=7&x=1. Terms (http://acme.example/t) and https://en.wikipedia.org/wiki/Foo_(bar)!',
      BASE,
    )!;
    expect(t.urls).toEqual([
      'https://pay.acme.example/inv?id=7&x=1',
      'http://acme.example/t',
      'https://en.wikipedia.org/wiki/Foo_(bar)',
    ]);
    expect(t.parts).toEqual(['Pay at ', '. Terms (', ') and ', '!']);
    const code = 'x'.repeat(CODE_LENGTH);
    expect(t.measured).toBe(`Pay at ${BASE}/${code}. Terms (${BASE}/${code}) and ${BASE}/${code}!`);
  });

  it('leaves a text without links (or with a bare scheme) alone', () => {
    expect(linkTemplate('No links here, nor ftp://x.example', BASE)).toBeNull();
    expect(linkTemplate('Just https:// and http://.', BASE)).toBeNull();
  });

  it('stamps a fresh code per link, as long as the measured text', () => {
    const t = linkTemplate('A https://a.example B https://b.example', BASE)!;
    const one = stampLinks(t, BASE);
    const two = stampLinks(t, BASE);
    expect(one.codes).toHaveLength(2);
    expect(one.text).toBe(`A ${BASE}/${one.codes[0]} B ${BASE}/${one.codes[1]}`);
    expect(one.text.length).toBe(t.measured.length);
    expect(new Set([...one.codes, ...two.codes]).size).toBe(4);
  });

  it('makes codes of letters and digits, of the set length, without repeats in 100,000', () => {
    const codes = new Set<string>();
    for (let i = 0; i < 100_000; i++) codes.add(newLinkCode());
    expect(codes.size).toBe(100_000);
    expect([...codes].filter((c) => c.length !== CODE_LENGTH || !CODE_PATTERN.test(c))).toEqual([]);
    // Every character of the alphabet turns up, the last ones as often as the first.
    const counts = new Map<string, number>();
    for (const c of codes) for (const ch of c) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(62);
    const expected = (100_000 * CODE_LENGTH) / 62;
    for (const n of counts.values()) expect(Math.abs(n - expected) / expected).toBeLessThan(0.05);
  });
});
