import { priceOf, sum } from '../../../platform/money/money.js';
import type { EntryText } from './text-plan.js';

export interface PricedTexts {
  /** Per entry, in entry order: what that recipient costs; undefined for a refused one. */
  costs: Array<string | undefined>;
  /** The charge: the sum of the recipients' costs, exactly. */
  total: string;
  /** The largest units of any one recipient (the request row's units_per_recipient). */
  maxUnits: number;
}

/**
 * Prices each recipient on its own text, at its own price per unit (one for all, or one per
 * entry: destination prices). Texts of the same size at the same price cost the same, so the
 * decimal arithmetic runs once per distinct (price, size), not once per recipient.
 */
export function priceTexts(unitPrices: string | string[], texts: Array<EntryText | undefined>): PricedTexts {
  const byUnits = new Map<string, { cost: string; count: number }>();
  const costs: Array<string | undefined> = [];
  let maxUnits = 0;
  for (const [i, t] of texts.entries()) {
    if (!t) {
      costs.push(undefined);
      continue;
    }
    const units = t.measure.units;
    const unitPrice = typeof unitPrices === 'string' ? unitPrices : unitPrices[i]!;
    const key = `${unitPrice}|${units}`;
    let group = byUnits.get(key);
    if (!group) {
      group = { cost: priceOf(unitPrice, units), count: 0 };
      byUnits.set(key, group);
    }
    group.count++;
    costs.push(group.cost);
    if (units > maxUnits) maxUnits = units;
  }
  const total = sum([...byUnits.values()].map((g) => priceOf(g.cost, g.count)));
  return { costs, total, maxUnits };
}
