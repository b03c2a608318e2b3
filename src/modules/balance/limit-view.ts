import { Decimal } from 'decimal.js';
import { cell, printJson, printLine } from '../../platform/cli/output.js';
import { money } from '../../platform/money/money.js';
import { utcDay } from './daily-limit.js';

/** What `accounts limit` and `keys limit` print: the limit, today's (UTC) spend and what remains. */
export function limitView(limit: string | null | undefined, spent: string, now: Date) {
  const daily = limit === null || limit === undefined ? null : money(limit);
  return {
    daily_limit: daily,
    day: utcDay(now),
    spent_today: spent,
    remaining_today: daily === null ? null : money(Decimal.max(0, new Decimal(daily).minus(spent))),
  };
}

export function printLimit(view: Record<string, unknown>, json?: boolean): void {
  if (json) return printJson(view);
  for (const [field, value] of Object.entries(view)) printLine(`${`${field}:`.padEnd(17)}${cell(value)}`);
}
