import { escapeAllControls, escapeControls } from '../text/control-characters.js';

/**
 * The fields that hold amounts, wherever they appear in a command's view: exact decimal text in
 * the view, numbers in its JSON, as the API answers them (`"balance": 100.5`). Named here once,
 * so every command's --json prints them alike (balances, prices, limits and today's spend).
 */
export const MONEY_FIELDS: ReadonlySet<string> = new Set([
  'amount',
  'balance',
  'from_balance',
  'to_balance',
  'cost_per_unit',
  'daily_limit',
  'spent_today',
  'remaining_today',
  'subaccounts_spent_today',
]);

/** stdout carries the answer only (one JSON object with --json); messages go to stderr. */
export function printJson(value: object): void {
  const json = JSON.stringify(value, (key, v: unknown) =>
    MONEY_FIELDS.has(key) && typeof v === 'string' && v !== '' && Number.isFinite(Number(v)) ? Number(v) : v,
  );
  process.stdout.write(`${json}\n`);
}

/** A line of text for a person: control characters in it (ESC, NUL, …) are shown escaped, never sent to the terminal. */
export function printLine(text = ''): void {
  process.stdout.write(`${escapeControls(text)}\n`);
}

/** A small aligned table; an empty list prints a note instead of bare headers. */
export function printTable(
  rows: Array<Record<string, unknown>>,
  columns: Array<[key: string, title: string]>,
): void {
  if (rows.length === 0) {
    printLine('(none)');
    return;
  }
  const cells = rows.map((r) => columns.map(([key]) => cell(r[key])));
  const widths = columns.map(([, title], i) => Math.max(title.length, ...cells.map((c) => c[i].length)));
  const format = (values: string[]) =>
    values
      .map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  printLine(format(columns.map(([, title]) => title)));
  for (const c of cells) printLine(format(c));
}

export function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.length ? value.map(cell).join(',') : '-';
  // One cell, one line: a line break or a terminal escape in a stored value is shown escaped.
  return escapeAllControls(String(value));
}

export function iso(value: Date | null | undefined): string | null {
  return value ? value.toISOString() : null;
}
