import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { DestinationPriceStore } from '../../balance/pricing/destination-price.store.js';
import { AccountsService } from '../../accounts/accounts.service.js';
import type { Channel } from '../../messages/channel.js';
import { money } from '../../../platform/money/money.js';
import { ConnectorStore, type ConnectorFields, type ConnectorStateRow } from './connector.store.js';
import { STATE_FRESH_MS } from './connector.pool.js';
import { DEFAULT_CONNECTOR, type ConnectorRow } from './routing-table.js';

/** A refusal of a well-formed command (unknown connector, a name taken): exit 1 with this message. */
export class ConnectorError extends Error {}

export interface ConnectorView {
  name: string;
  url: string;
  tps: number;
  window: number;
  bind: 'transceiver' | 'transmitter';
  system_type: string | null;
  enabled: boolean;
  /** Live state summed over the workers that reported within the last few seconds. */
  workers: number;
  bound: number;
  in_flight: number;
  queued: number;
  sent_per_second: number;
  /** The most recent trouble any worker saw on the link (kept after it heals), and when. */
  last_error: string | null;
  last_error_at: string | null;
}

function latestError(states: ConnectorStateRow[]): Pick<ConnectorView, 'last_error' | 'last_error_at'> {
  const latest = states
    .filter((s) => s.last_error && s.last_error_at)
    .sort((a, b) => new Date(b.last_error_at!).getTime() - new Date(a.last_error_at!).getTime())[0];
  return {
    last_error: latest?.last_error ?? null,
    last_error_at: latest ? new Date(latest.last_error_at!).toISOString() : null,
  };
}

/** The URL without its password, for listings. */
function hidePassword(url: string): string {
  return url.replace(/^(smpps?:\/\/[^:@/]*):[^@]*@/, '$1:***@');
}

/** The CLI's view of connectors, routes and destination prices. */
@Injectable()
export class ConnectorAdminService {
  constructor(
    private readonly store: ConnectorStore,
    private readonly accounts: AccountsService,
    private readonly destinationPrices: DestinationPriceStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async add(name: string, f: ConnectorFields): Promise<ConnectorView> {
    if (name === DEFAULT_CONNECTOR)
      throw new ConnectorError(`"${DEFAULT_CONNECTOR}" is the name of SMPP_URL's connector; choose another`);
    if (!(await this.store.insertConnector(name, f)))
      throw new ConnectorError(`a connector named ${name} already exists`);
    return (await this.list()).find((c) => c.name === name)!;
  }

  async update(name: string, f: Partial<ConnectorFields> & { enabled?: boolean }): Promise<ConnectorView> {
    const row = await this.require(name);
    await this.store.updateConnector(row.id, f);
    return (await this.list()).find((c) => c.name === name)!;
  }

  async remove(name: string): Promise<void> {
    const row = await this.require(name);
    const routes = await this.store.countRoutesOf(row.id);
    if (routes > 0)
      throw new ConnectorError(
        `connector ${name} still has ${routes} route(s); remove them first (routes list shows them)`,
      );
    await this.store.deleteConnector(row.id);
  }

  /**
   * The connectors of the table, after SMPP_URL's own ("default") when it is set: each with the
   * live state its workers reported.
   */
  async list(): Promise<ConnectorView[]> {
    const [rows, live] = await Promise.all([this.store.connectors(), this.store.liveState(STATE_FRESH_MS)]);
    const smppUrl = this.config.smppUrl;
    const fallback: ConnectorRow[] = smppUrl
      ? [
          {
            id: 0,
            name: DEFAULT_CONNECTOR,
            url: smppUrl,
            tps: this.config.smppTps,
            window_size: this.config.smppWindow,
            bind_mode: 'transceiver',
            system_type: null,
            enabled: 1,
          },
        ]
      : [];
    return [...fallback, ...rows].map((c) => {
      const states = live.filter((s) => s.connector === c.name);
      return {
        name: c.name,
        url: hidePassword(c.url),
        tps: c.tps,
        window: c.window_size,
        bind: c.bind_mode,
        system_type: c.system_type,
        enabled: Boolean(Number(c.enabled)),
        workers: states.length,
        bound: states.filter((s) => Number(s.bound) === 1).length,
        in_flight: states.reduce((n, s) => n + Number(s.in_flight), 0),
        queued: states.reduce((n, s) => n + Number(s.queued), 0),
        sent_per_second: Math.round(states.reduce((n, s) => n + Number(s.sent_per_second), 0) * 10) / 10,
        ...latestError(states),
      };
    });
  }

  async addRoute(prefix: string, connector: string, priority: number, username?: string) {
    const row = await this.require(connector);
    const accountId = await this.accountId(username);
    await this.store.upsertRoute(accountId, prefix, row.id, priority);
    return { prefix, connector, priority, username: username ?? null };
  }

  async removeRoute(prefix: string, connector: string | undefined, username?: string): Promise<number> {
    const row = connector ? await this.require(connector) : null;
    const n = await this.store.deleteRoutes(await this.accountId(username), prefix, row?.id ?? null);
    if (n === 0) throw new ConnectorError(`no such route: ${prefix}${connector ? ` → ${connector}` : ''}`);
    return n;
  }

  async routes() {
    return (await this.store.routeViews()).map((r) => ({
      prefix: r.prefix,
      connector: r.connector,
      priority: r.priority,
      username: r.username,
    }));
  }

  async setPrice(username: string, channel: Channel, prefix: string, costPerUnit: string) {
    const account = await this.accounts.requireByUsername(username);
    await this.destinationPrices.setPrice(account.id, channel, prefix, costPerUnit);
    return { username, channel, prefix, cost_per_unit: money(costPerUnit) };
  }

  async prices(username: string) {
    const account = await this.accounts.requireByUsername(username);
    return (await this.destinationPrices.prices(account.id)).map((p) => ({
      channel: p.channel,
      prefix: p.prefix,
      cost_per_unit: money(p.cost_per_unit),
    }));
  }

  async removePrice(username: string, channel: Channel, prefix: string): Promise<void> {
    const account = await this.accounts.requireByUsername(username);
    if (!(await this.destinationPrices.deletePrice(account.id, channel, prefix)))
      throw new ConnectorError(`${username} has no ${channel} price for ${prefix}`);
  }

  private async require(name: string): Promise<ConnectorRow> {
    const row = await this.store.connector(name);
    if (!row) throw new ConnectorError(`no connector named ${name}`);
    return row;
  }

  private async accountId(username?: string): Promise<string> {
    return username ? (await this.accounts.requireByUsername(username)).id : '0';
  }
}
