import { Injectable } from '@nestjs/common';
import { Pricing, type PriceSnapshot } from '../balance/pricing/pricing.service.js';
import type { Channel } from '../messages/channel.js';
import { RoutingService, type RoutedRecipient, type SendRoutes } from '../delivery/smpp/routing.service.js';

/**
 * An account's routes and prices on one channel as this process holds them at one moment: the
 * send pipeline checks its recipients' destinations against it, then prices them by it.
 */
export class Tariff {
  constructor(
    private readonly accountId: string,
    private readonly routes: SendRoutes,
    private readonly prices: PriceSnapshot,
  ) {}

  /** Unroutable SMS recipients become REJECTED (NO_ROUTE), before anything is charged. */
  rejectUnroutable(entries: RoutedRecipient[]): void {
    this.routes.rejectUnroutable(this.accountId, entries);
  }

  /** Each recipient's price per unit, in order: its destination's (longest prefix), else the channel's. */
  unitPrices(entries: Array<{ recipient: string }>): string[] {
    return this.prices.unitPrices(entries);
  }
}

@Injectable()
export class TariffService {
  constructor(
    private readonly routing: RoutingService,
    private readonly pricing: Pricing,
  ) {}

  /**
   * The account's tariff on `channel`: at once while its routes and prices are remembered (nearly
   * every send; no promise, docs/performance.md#promises), else a promise of their reads.
   */
  of(accountId: string, channel: Channel): Tariff | Promise<Tariff> {
    const routes = this.routing.sendRoutes(channel);
    const prices = this.pricing.snapshot(accountId, channel);
    if (routes instanceof Promise || prices instanceof Promise)
      return Promise.all([routes, prices]).then(([r, p]) => new Tariff(accountId, r, p));
    return new Tariff(accountId, routes, prices);
  }
}
