/**
 * `{{name}}` placeholders: a name is letters, digits and `_`. Anything else between braces
 * (`{{ name }}`, `{{a-b}}`, a lone `{{`) is ordinary text and is sent as written.
 */
const PLACEHOLDER = /\{\{([A-Za-z0-9_]+)\}\}/g;

/** A text cut once into literal pieces and placeholder names, so each recipient costs a join, not a regex. */
export interface CompiledText {
  /** literals[i] comes before names[i]; there is one more literal than names. */
  readonly literals: readonly string[];
  readonly names: readonly string[];
}

export type RenderResult = { ok: true; text: string } | { ok: false; missing: string };

export function compileText(text: string): CompiledText {
  const literals: string[] = [];
  const names: string[] = [];
  let last = 0;
  for (const m of text.matchAll(PLACEHOLDER)) {
    literals.push(text.slice(last, m.index));
    names.push(m[1]);
    last = m.index + m[0].length;
  }
  literals.push(text.slice(last));
  return { literals, names };
}

/** The distinct placeholder names of a text, in order of first use. */
export function placeholderNames(text: string): string[] {
  return [...new Set(compileText(text).names)];
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes a value for HTML text and attribute values alike. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/**
 * Fills the placeholders from `values`. A name with no value (an own property holding a
 * string) fails the whole text: a half-filled message is never sent.
 */
export function renderText(
  compiled: CompiledText,
  values: Readonly<Record<string, string>> | undefined,
  escape?: (value: string) => string,
): RenderResult {
  const { literals, names } = compiled;
  if (names.length === 0) return { ok: true, text: literals[0] };
  let out = literals[0];
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    const value = values && Object.hasOwn(values, name) ? values[name] : undefined;
    if (typeof value !== 'string') return { ok: false, missing: name };
    out += (escape ? escape(value) : value) + literals[i + 1];
  }
  return { ok: true, text: out };
}
