import { destinationDigits } from '../../../platform/prefixes/longest-prefix.js';

/** The name under which SMPP_URL serves as the connector of destinations no route matches. */
export const DEFAULT_CONNECTOR = 'default';

export interface ConnectorRow {
  id: number;
  name: string;
  url: string;
  tps: number;
  window_size: number;
  bind_mode: 'transceiver' | 'transmitter';
  system_type: string | null;
  enabled: number | boolean;
}

export interface RouteRow {
  id: number;
  /** '0' for a global route. */
  account_id: string;
  prefix: string;
  connector_id: number;
  priority: number;
}

/**
 * Where each destination goes: the longest matching prefix among the account's own routes and
 * the global ones together, the account's route first when both have the same length; the
 * connectors on that prefix in priority order (1 first) for failover. Routes to a disabled
 * connector do not count. No route: the default connector (SMPP_URL) when there is one.
 */
export class RoutingTable {
  private readonly global = new Map<string, string[]>();
  private readonly own = new Map<string, Map<string, string[]>>();
  private readonly maxLength: number;
  readonly connectors: ConnectorRow[];

  constructor(
    connectors: ConnectorRow[],
    routes: RouteRow[],
    readonly defaultConnector: string | null,
  ) {
    this.connectors = connectors;
    const enabled = new Map(connectors.filter((c) => Boolean(c.enabled)).map((c) => [c.id, c.name]));
    const sorted = [...routes].sort((a, b) => a.priority - b.priority || a.id - b.id);
    let maxLength = 0;
    for (const r of sorted) {
      const name = enabled.get(r.connector_id);
      if (!name) continue;
      const account = String(r.account_id);
      let map = this.global;
      if (account !== '0') {
        map = this.own.get(account) ?? new Map<string, string[]>();
        this.own.set(account, map);
      }
      map.set(r.prefix, [...(map.get(r.prefix) ?? []), name]);
      maxLength = Math.max(maxLength, r.prefix.length);
    }
    this.maxLength = maxLength;
  }

  /** True when no destination can fail to find a connector (there is a default and no route could say otherwise). */
  get routesEverything(): boolean {
    return this.defaultConnector !== null;
  }

  /** The connectors to try for a destination, in order; empty: no route. */
  candidates(accountId: string, recipient: string): string[] {
    const digits = destinationDigits(recipient);
    const own = this.own.get(String(accountId));
    for (let n = Math.min(this.maxLength, digits.length); n > 0; n--) {
      const prefix = digits.slice(0, n);
      const hit = own?.get(prefix) ?? this.global.get(prefix);
      if (hit) return hit;
    }
    return this.defaultConnector ? [this.defaultConnector] : [];
  }
}
