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

  /** Each recipient's price per unit, in order. */
  async unitPrices(
    accountId: string,
    channel: Channel,
    recipients: Array<{ recipient: string }>,
  ): Promise<string[]> {
    const channelPrice =
      this.balances.cachedUnitPrice(accountId, channel) ??
      (await this.balances.unitPrice(accountId, channel));
    return priced(await this.table(accountId, channel), recipients, channelPrice);
  }

  /** unitPrices without a promise, while the prices it needs are remembered; else undefined. */
  unitPricesCached(
    accountId: string,
    channel: Channel,
    recipients: Array<{ recipient: string }>,
  ): string[] | undefined {
    const channelPrice = this.balances.cachedUnitPrice(accountId, channel);
    const table = this.tables.peek(`${accountId}:${channel}`);
    return channelPrice !== undefined && table ? priced(table, recipients, channelPrice) : undefined;
  }

  private table(accountId: string, channel: Channel): Promise<PriceTable> {
    return this.tables.get(`${accountId}:${channel}`, () =>
      this.store.effectivePrices(accountId, channel).then((rows) => new PriceTable(channel, rows)),
    );
  }
}

function priced(table: PriceTable, recipients: Array<{ recipient: string }>, channelPrice: string): string[] {
  if (table.empty) return recipients.map(() => channelPrice);
  return recipients.map((r) => table.price(r.recipient) ?? channelPrice);
}
