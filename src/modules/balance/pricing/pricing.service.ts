import { Injectable } from '@nestjs/common';
import { TtlCache } from '../../../platform/caching/ttl-cache.js';
import type { Channel } from '../../messages/channel.js';
import { BalanceService, PRICE_TTL_MS } from '../balance.service.js';
import { DestinationPriceStore } from './destination-price.store.js';
import { PriceTable } from './price-table.js';

const MAX_PRICE_TABLES = 10_000;

/**
 * What each recipient costs per unit: the longest matching destination price of the account
 * (a sub-account's parent's where it has none of its own), else the channel's price. Both are
 * remembered for PRICE_TTL_MS, so a send usually prices without a query.
 */
@Injectable()
export class Pricing {
  private readonly tables = new TtlCache<PriceTable>(PRICE_TTL_MS, MAX_PRICE_TABLES);

  constructor(
    private readonly balances: BalanceService,
    private readonly store: DestinationPriceStore,
  ) {}

  /**
   * What the account pays on `channel` now: at once while its channel price and destination
   * prices are remembered (no promise, docs/performance.md#promises), else a promise of their reads.
   */
  snapshot(accountId: string, channel: Channel): PriceSnapshot | Promise<PriceSnapshot> {
    const key = `${accountId}:${channel}`;
    const channelPrice = this.balances.unitPrice(accountId, channel);
    const table = this.tables.peek(key);
    if (table && typeof channelPrice === 'string') return new PriceSnapshot(table, channelPrice);
    return Promise.all([channelPrice, table ?? this.table(key, accountId, channel)]).then(
      ([price, read]) => new PriceSnapshot(read, price),
    );
  }

  private table(key: string, accountId: string, channel: Channel): Promise<PriceTable> {
    return this.tables.get(key, () =>
      this.store.effectivePrices(accountId, channel).then((rows) => new PriceTable(channel, rows)),
    );
  }
}

/** An account's prices on one channel as read at one moment. */
export class PriceSnapshot {
  constructor(
    private readonly table: PriceTable,
    private readonly channelPrice: string,
  ) {}

  /** Each recipient's price per unit, in order. */
  unitPrices(recipients: Array<{ recipient: string }>): string[] {
    const { table, channelPrice } = this;
    if (table.empty) return recipients.map(() => channelPrice);
    return recipients.map((r) => table.price(r.recipient) ?? channelPrice);
  }
}
