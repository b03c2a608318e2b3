import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The examples of the README and of the pages under docs/, as the README test runs them. Every
 * ```sh or ```bash block is run unless the last non-blank line before its fence is
 * `<!-- not run: reason -->`.
 * A ```json or ```xml block that follows a run block, with no heading in between, is the
 * answer that block prints last, and the test compares their shapes.
 */
export interface Example {
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  skip?: string;
  expected?: { lang: 'json' | 'xml'; text: string };
}

const FENCE = /^```(\w*)\s*$/;
const NOT_RUN = /^<!--\s*not run:\s*(.+?)\s*-->\s*$/;

export function parseExamples(readme: string): Example[] {
  const lines = readme.split('\n');
  const examples: Example[] = [];
  let open: { lang: string; line: number; body: string[]; skip?: string } | undefined;
  let headingSinceLastRun = true;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (!open) {
      if (/^#{1,6}\s/.test(l)) headingSinceLastRun = true;
      const m = FENCE.exec(l);
      if (m) {
        let j = i - 1;
        while (j >= 0 && lines[j].trim() === '') j--;
        const before = j >= 0 ? NOT_RUN.exec(lines[j]) : null;
        open = { lang: m[1], line: i + 1, body: [], skip: before?.[1] };
      }
      continue;
    }
    if (l.startsWith('```')) {
      const last = examples.at(-1);
      if (['sh', 'bash'].includes(open.lang)) {
        examples.push({
          line: open.line,
          code: open.body.join('\n'),
          ...(open.skip ? { skip: open.skip } : {}),
        });
        headingSinceLastRun = false;
      } else if (
        (open.lang === 'json' || open.lang === 'xml') &&
        last &&
        !last.skip &&
        !last.expected &&
        !headingSinceLastRun
      ) {
        last.expected = { lang: open.lang, text: open.body.join('\n') };
      }
      open = undefined;
      continue;
    }
    open.body.push(l);
  }
  return examples;
}

/**
 * Fields whose values the README's examples show as they really come out, wherever they
 * appear: counts, sizes and money follow from the commands run before, in order, so a wrong
 * number in an example is a failure. Identifiers and times are not (they change every run).
 */
export const VALUE_KEYS: ReadonlySet<string> = new Set([
  'characters',
  'segments',
  'units',
  'encoding',
  'cost',
  'cost_per_unit',
  'balance_value',
  'credits',
  'total_value',
  'balance',
  'sufficient',
  'accepted',
  'rejected',
  'count',
  'cancelled',
  'not_cancelled',
  'refunded',
  'rescheduled',
]);

const isScalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);

/**
 * Where an answer differs from the README's: keys (all levels), value types (null
 * stands for any), the values of a top-level `success` and `status`, and those of VALUE_KEYS. Arrays are compared element by element (the last shown
 * element stands for any further ones).
 */
export function shapeDifferences(expected: unknown, actual: unknown, path = '$'): string[] {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: expected an array, got ${JSON.stringify(actual)}`];
    if (expected.length === 0) return [];
    return actual.flatMap((a, i) =>
      shapeDifferences(expected[Math.min(i, expected.length - 1)], a, `${path}[${i}]`),
    );
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual))
      return [`${path}: expected an object`];
    const e = expected as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    const problems: string[] = [];
    for (const k of Object.keys(e)) {
      if (!(k in a)) problems.push(`${path}.${k}: missing`);
      else problems.push(...shapeDifferences(e[k], a[k], `${path}.${k}`));
      const comparedHere = (path === '$' && (k === 'success' || k === 'status')) || VALUE_KEYS.has(k);
      if (comparedHere && k in a && e[k] !== null && isScalar(e[k]) && e[k] !== a[k]) {
        problems.push(`${path}.${k}: ${JSON.stringify(a[k])}, the example shows ${JSON.stringify(e[k])}`);
      }
    }
    for (const k of Object.keys(a)) if (!(k in e)) problems.push(`${path}.${k}: not in the README`);
    return problems;
  }
  // A field not set yet (a message not yet sent) is null in one answer and a value in another.
  if (expected === null || actual === null) return [];
  return typeof expected === typeof actual
    ? []
    : [`${path}: expected a ${typeof expected}, got ${JSON.stringify(actual)}`];
}

/** The element names of an XML answer, in order: its shape without the values. */
export function xmlTags(xml: string): string[] {
  return [...xml.matchAll(/<([A-Za-z_][\w.-]*)[\s>/]/g)].map((m) => m[1]);
}

/**
 * Pages of docs/ whose examples run after the README's, in this order. A page with a runnable
 * block that is not listed runs after these, in path order: list it only to run it earlier.
 * The shell's database state (balances, messages) carries on from page to page, so a page
 * added in the middle can change the figures the pages after it show.
 */
export const DOC_PAGE_ORDER: readonly string[] = [
  'docs/api/authentication.md',
  'docs/api/sending.md',
  'docs/api/personalisation.md',
  'docs/api/money.md',
  'docs/api/idempotency.md',
  'docs/api/test-keys.md',
  'docs/api/spend-limits.md',
  'docs/api/inbound-and-opt-out.md',
  'docs/api/scheduling.md',
  'docs/api/search-and-export.md',
  'docs/operations/routing.md',
  'docs/operations/retention.md',
];

export interface ExamplePage {
  /** Path from the repository root, with `/`. */
  file: string;
  examples: Example[];
}

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? markdownFiles(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
  );
}

/**
 * The README, then every page of docs/ with at least one runnable block: DOC_PAGE_ORDER first,
 * the others in path order.
 */
export function examplePages(root: string): ExamplePage[] {
  const read = (file: string): ExamplePage => ({
    file,
    examples: parseExamples(readFileSync(join(root, file), 'utf8')),
  });
  const docs = markdownFiles(join(root, 'docs'))
    .map((f) => relative(root, f).split('\\').join('/'))
    .sort()
    .map(read)
    .filter((p) => p.examples.some((e) => !e.skip));
  const rank = (file: string) => {
    const i = DOC_PAGE_ORDER.indexOf(file);
    return i < 0 ? DOC_PAGE_ORDER.length : i;
  };
  docs.sort((a, b) => rank(a.file) - rank(b.file) || a.file.localeCompare(b.file));
  return [read('README.md'), ...docs];
}
