import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { TtlCache } from '../../../platform/caching/ttl-cache.js';
import type { Channel } from '../../messages/channel.js';
import { ConnectorStore } from './connector.store.js';
import { DEFAULT_CONNECTOR, PriceTable, RoutingTable } from './routing-table.js';

/**
 * Connector, route and price changes made with the CLI reach every process within this long
 * (the API reads them per send, the workers also on a timer): well inside the 5 s promised.
 */
export const ROUTING_TTL_MS = 1000;
const MAX_PRICE_TABLES = 10_000;

/** What the send pipeline needs to know of each recipient. */
export interface RoutedRecipient {
  recipient: string;
  /** SCHEDULED never reaches routing (a send is marked scheduled after it is routed and priced). */
  status: 'ACKNOWLEDGED' | 'SCHEDULED' | 'REJECTED';
  reason?: string;
}

/** The reason of a recipient no route and no default connector can take. */
export const NO_ROUTE = 'NO_ROUTE';

/**
 * Routes and destination prices as this process last read them, re-read at most once per
 * ROUTING_TTL_MS (one read in flight at a time, however many sends ask).
 */
@Injectable()
export class RoutingService {
  private table: { value: RoutingTable; until: number } | null = null;
  private loading: Promise<RoutingTable> | null = null;
  private readonly prices = new TtlCache<PriceTable>(ROUTING_TTL_MS, MAX_PRICE_TABLES);
  private readonly routed: boolean;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly store: ConnectorStore,
  ) {
    this.routed = config.transports.sms === 'smpp';
  }

  /** SMPP_URL, when set, serves destinations no route matches. */
  get defaultConnector(): string | null {
    return this.routed && this.config.smppUrl ? DEFAULT_CONNECTOR : null;
  }

  async routes(): Promise<RoutingTable> {
    if (this.table && this.table.until > Date.now()) return this.table.value;
    this.loading ??= this.load().finally(() => (this.loading = null));
    return this.loading;
  }

  /** Reads now, whatever the cache holds (the workers' refresh timer). */
  refresh(): Promise<RoutingTable> {
    this.table = null;
    return this.routes();
  }

  private async load(): Promise<RoutingTable> {
    const [connectors, routes] = await Promise.all([this.store.connectors(), this.store.routes()]);
    const value = new RoutingTable(connectors, routes, this.defaultConnector);
    this.table = { value, until: Date.now() + ROUTING_TTL_MS };
    return value;
  }

  priceTable(accountId: string, channel: Channel): Promise<PriceTable> {
    return this.prices.get(`${accountId}:${channel}`, () =>
      this.store.effectivePrices(accountId, channel).then((rows) => new PriceTable(channel, rows)),
    );
  }

  /**
   * For the send pipeline: marks SMS recipients that no connector can take REJECTED with
   * NO_ROUTE (they are not charged), and answers each recipient's price per unit: the
   * longest matching destination price of the account (a sub-account's own or, for a prefix
   * it has not priced, its parent's), else the channel's price.
   */
  async routeAndPrice(
    accountId: string,
    channel: Channel,
    entries: RoutedRecipient[],
    channelPrice: string,
  ): Promise<string[]> {
    const table = this.needsRoutes(channel) ? await this.routes() : null;
    return routeAndPrice(accountId, table, await this.priceTable(accountId, channel), entries, channelPrice);
  }

  /** routeAndPrice without a promise, while the routes and prices it needs are remembered; else undefined. */
  routeAndPriceCached(
    accountId: string,
    channel: Channel,
    entries: RoutedRecipient[],
    channelPrice: string,
  ): string[] | undefined {
    let table: RoutingTable | null = null;
    if (this.needsRoutes(channel)) {
      if (!this.table || this.table.until <= Date.now()) return undefined;
      table = this.table.value;
    }
    const prices = this.prices.peek(`${accountId}:${channel}`);
    return prices && routeAndPrice(accountId, table, prices, entries, channelPrice);
  }

  private needsRoutes(channel: Channel): boolean {
    return channel === 'sms' && this.routed;
  }
}

function routeAndPrice(
  accountId: string,
  table: RoutingTable | null,
  prices: PriceTable,
  entries: RoutedRecipient[],
  channelPrice: string,
): string[] {
  if (table && !table.routesEverything) {
    for (const e of entries) {
      if (e.status === 'ACKNOWLEDGED' && table.candidates(accountId, e.recipient).length === 0) {
        e.status = 'REJECTED';
        e.reason = NO_ROUTE;
      }
    }
  }
  if (prices.empty) return entries.map(() => channelPrice);
  return entries.map((e) => prices.price(e.recipient) ?? channelPrice);
}
