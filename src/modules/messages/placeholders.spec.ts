import { describe, expect, it } from 'vitest';
import { compileText, escapeHtml, placeholderNames, renderText } from './placeholders.js';

const render = (text: string, values?: Record<string, string>, escape?: (v: string) => string) =>
  renderText(compileText(text), values, escape);

describe('placeholders', () => {
  it('fills every {{name}} with its value, however often it appears', () => {
    expect(render('Hi {{name}}, {{name}} owes {{amount_1}}', { name: 'Jane', amount_1: '5' })).toEqual({
      ok: true,
      text: 'Hi Jane, Jane owes 5',
    });
  });

  it('leaves a text without placeholders exactly as written, values or not', () => {
    expect(render('Plain {text} with { braces }', undefined)).toEqual({
      ok: true,
      text: 'Plain {text} with { braces }',
    });
  });

  it('treats braces that do not hold a plain name as ordinary text', () => {
    expect(render('{{ name }} {{a-b}} {{}} {{x', { name: 'N', x: 'X' })).toEqual({
      ok: true,
      text: '{{ name }} {{a-b}} {{}} {{x',
    });
  });

  it('fails with the first missing name instead of sending a half-filled text', () => {
    expect(render('Hi {{first}} {{last}}', { first: 'Jane' })).toEqual({ ok: false, missing: 'last' });
    expect(render('Hi {{first}}', undefined)).toEqual({ ok: false, missing: 'first' });
  });

  it('does not take a value from the object prototype', () => {
    expect(render('{{toString}} {{constructor}}', {})).toEqual({ ok: false, missing: 'toString' });
  });

  it('accepts an empty string as a value', () => {
    expect(render('[{{x}}]', { x: '' })).toEqual({ ok: true, text: '[]' });
  });

  it('does not read placeholders inside a value (no second pass)', () => {
    expect(render('{{a}}', { a: '{{b}}', b: 'no' })).toEqual({ ok: true, text: '{{b}}' });
  });

  it('escapes values, not the template, when an escape is given', () => {
    expect(render('<p>{{name}}</p>', { name: '<b>"Tom" & \'Jerry\'</b>' }, escapeHtml)).toEqual({
      ok: true,
      text: '<p>&lt;b&gt;&quot;Tom&quot; &amp; &#39;Jerry&#39;&lt;/b&gt;</p>',
    });
  });

  it('lists the distinct names in order of first use', () => {
    expect(placeholderNames('{{b}} {{a}} {{b}} {{ c }}')).toEqual(['b', 'a']);
  });
});
