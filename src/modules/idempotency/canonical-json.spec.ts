import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';

describe('canonicalJson', () => {
  it('reads bodies that differ only in key order as the same, at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: 'x' } })).toBe(
      canonicalJson({ a: { c: 'x', d: [1, { x: 1, y: 2 }] }, b: 1 }),
    );
  });

  it('tells apart bodies whose values, array order or nesting differ', () => {
    const one = canonicalJson({ to: ['1', '2'], n: 1 });
    expect(canonicalJson({ to: ['2', '1'], n: 1 })).not.toBe(one);
    expect(canonicalJson({ to: ['1', '2'], n: '1' })).not.toBe(one);
    expect(canonicalJson({ to: { 0: '1', 1: '2' }, n: 1 })).not.toBe(one);
    expect(canonicalJson({ 'a"b': 1 })).toBe('{"a\\"b":1}');
  });
});
