import { destinationDigits, longestPrefix } from '../../../platform/prefixes/longest-prefix.js';
import type { Channel } from '../../messages/channel.js';

export interface PriceRow {
  prefix: string;
  cost_per_unit: string;
}

/** An account's destination prices on one channel: the longest matching prefix, else null (the channel price). */
export class PriceTable {
  private readonly byPrefix: Map<string, string>;
  private readonly maxLength: number;

  constructor(
    readonly channel: Channel,
    rows: PriceRow[],
  ) {
    this.byPrefix = new Map(rows.map((r) => [r.prefix, r.cost_per_unit]));
    this.maxLength = Math.max(0, ...rows.map((r) => r.prefix.length));
  }

  get empty(): boolean {
    return this.byPrefix.size === 0;
  }

  price(recipient: string): string | null {
    if (this.maxLength === 0) return null;
    return longestPrefix(this.byPrefix, destinationDigits(recipient), this.maxLength) ?? null;
  }
}
