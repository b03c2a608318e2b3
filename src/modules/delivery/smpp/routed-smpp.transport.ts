import type {
  InboundHandler,
  OutboundMessage,
  ReportHandler,
  Transport,
  TransportHealth,
  TransportResult,
} from '../transports/transport.js';
import type { ConnectorPool } from './connector.pool.js';
import { NO_ROUTE, type RoutingService } from './routing.service.js';
import { withFields } from '../../../platform/objects/with-fields.js';

/**
 * SMS over several SMSC links. Each message goes to the connectors its destination routes to,
 * in priority order: an unbound connector, or one taken out of rotation for failing, is passed
 * over while a later one is usable, and messages a connector could not hand over (a transient
 * failure: not bound, connection lost) go to the next. Only the last connector's transient
 * failures reach the dispatcher, which retries them later as ever. A message the SMSC accepted
 * or refused is never offered to another.
 */
export class RoutedSmppTransport implements Transport {
  readonly name = 'smpp';

  constructor(
    private readonly pool: ConnectorPool,
    private readonly routing: RoutingService,
  ) {
    pool.start();
  }

  onReport(handler: ReportHandler): void {
    this.pool.onReport(handler);
  }

  /** Messages a handset writes back arrive on any link: each connector hands them on. */
  onInbound(handler: InboundHandler): void {
    this.pool.onInbound(handler);
  }

  async send(
    messages: OutboundMessage[],
    onAccepted?: (providerIds: string[]) => void,
  ): Promise<TransportResult[]> {
    if (messages.length === 0) return [];
    const table = await this.routing.routes();
    const groups = new Map<string, { candidates: string[]; indexes: number[] }>();
    messages.forEach((m, i) => {
      // Messages are sent for the account they were accepted for: apiReference identifies the request, not the account.
      const candidates = table.candidates(m.accountId ?? '0', m.recipient);
      const key = candidates.join('\n');
      const group = groups.get(key) ?? { candidates, indexes: [] };
      group.indexes.push(i);
      groups.set(key, group);
    });
    const results: TransportResult[] = new Array<TransportResult>(messages.length);
    await Promise.all(
      [...groups.values()].map((g) => this.sendGroup(messages, g.candidates, g.indexes, results, onAccepted)),
    );
    return results;
  }

  private async sendGroup(
    messages: OutboundMessage[],
    candidates: string[],
    indexes: number[],
    results: TransportResult[],
    onAccepted?: (providerIds: string[]) => void,
  ): Promise<void> {
    if (candidates.length === 0) {
      for (const i of indexes) results[i] = { kind: 'permanent', reason: NO_ROUTE };
      return;
    }
    if (candidates.some((name) => !this.pool.get(name))) await this.pool.syncSoon();
    let pending = indexes;
    for (let k = 0; k < candidates.length && pending.length > 0; k++) {
      const connector = this.pool.get(candidates[k]);
      if (!connector) continue;
      const later = candidates.slice(k + 1).some((name) => this.pool.usable(name));
      if (!this.pool.usable(connector.name) && later) continue;
      const out = await connector.transport.send(
        pending.map((i) => messages[i]),
        onAccepted,
      );
      this.pool.note(connector, out);
      const next: number[] = [];
      out.forEach((r, j) => {
        const i = pending[j];
        if (r.kind === 'accepted') results[i] = withFields(r, { connector: connector.name });
        else {
          results[i] = r;
          if (r.kind === 'transient') next.push(i);
        }
      });
      pending = next;
    }
    for (const i of pending)
      results[i] ??= { kind: 'transient', reason: `no connector available of ${candidates.join(', ')}` };
  }

  async health(): Promise<TransportHealth> {
    const connectors = this.pool.all();
    if (connectors.length === 0)
      return { status: 'down', message: 'no SMPP connector enabled', response_time_ms: 0 };
    const checks = await Promise.all(connectors.map((c) => c.transport.health()));
    const up = checks.filter((h) => h.status === 'up');
    const message = connectors.map((c, i) => `${c.name}: ${checks[i].message}`).join('; ');
    return {
      status: up.length > 0 ? 'up' : 'down',
      message,
      response_time_ms: Math.max(...checks.map((h) => h.response_time_ms)),
    };
  }

  // The pool is closed with the application (it owns the binds).
  async close(): Promise<void> {}
}
