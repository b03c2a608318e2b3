import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import type { Channel } from '../../messages/channel.js';
import { ConnectorStore } from './connector.store.js';
import { DEFAULT_CONNECTOR, RoutingTable } from './routing-table.js';

/**
 * Connector and route changes made with the CLI reach every process within this long
 * (the API reads them per send, the workers also on a timer): well inside the 5 s promised.
 */
export const ROUTING_TTL_MS = 1000;

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
 * Routes as this process last read them, re-read at most once per
 * ROUTING_TTL_MS (one read in flight at a time, however many sends ask).
 */
@Injectable()
export class RoutingService {
  private table: { value: RoutingTable; send: SendRoutes; until: number } | null = null;
  private loading: Promise<RoutingTable> | null = null;
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
    this.table = { value, send: new SendRoutes(value), until: Date.now() + ROUTING_TTL_MS };
    return value;
  }

  /**
   * The routes a send on `channel` is checked against: at once while this process remembers them
   * (no promise, docs/performance.md#promises), else a promise of their read. A channel that is
   * not routed gets routes that reject no one.
   */
  sendRoutes(channel: Channel): SendRoutes | Promise<SendRoutes> {
    if (!this.needsRoutes(channel)) return UNROUTED;
    const table = this.table;
    if (table && table.until > Date.now()) return table.send;
    return this.routes().then((value) => new SendRoutes(value));
  }

  private needsRoutes(channel: Channel): boolean {
    return channel === 'sms' && this.routed;
  }
}

/** The routing table as the send pipeline reads it. */
export class SendRoutes {
  constructor(private readonly table: RoutingTable | null) {}

  /** Marks the recipients no connector can take REJECTED with NO_ROUTE, before anything is charged (they are not). */
  rejectUnroutable(accountId: string, entries: RoutedRecipient[]): void {
    const table = this.table;
    if (!table || table.routesEverything) return;
    for (const e of entries) {
      if (e.status === 'ACKNOWLEDGED' && table.candidates(accountId, e.recipient).length === 0) {
        e.status = 'REJECTED';
        e.reason = NO_ROUTE;
      }
    }
  }
}

const UNROUTED = new SendRoutes(null);
