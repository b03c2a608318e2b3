import { Injectable } from '@nestjs/common';
import { STATE_FRESH_MS } from '../delivery/smpp/connector.pool.js';
import { ConnectorStore } from '../delivery/smpp/connector.store.js';
import type { TransportHealth } from '../delivery/transports/transport.js';

/**
 * The SMSC links as the workers report them (connector_state, written every few seconds), for
 * a process that has no bind of its own and no SMPP_URL to probe: an API-only process whose
 * SMSCs are all connectors added with the CLI. Up while any enabled connector is bound by a
 * live worker.
 */
@Injectable()
export class ConnectorHealth {
  constructor(private readonly store: ConnectorStore) {}

  async check(): Promise<TransportHealth> {
    const started = performance.now();
    const [connectors, live] = await Promise.all([
      this.store.connectors(),
      this.store.liveState(STATE_FRESH_MS),
    ]);
    const enabled = connectors.filter((c) => Boolean(Number(c.enabled))).map((c) => c.name);
    const bound = enabled.filter((name) => live.some((s) => s.connector === name && Number(s.bound) === 1));
    const response_time_ms = Math.round(performance.now() - started);
    if (enabled.length === 0)
      return {
        status: 'down',
        message: 'no SMSC configured: set SMPP_URL, or add or enable a connector',
        response_time_ms,
      };
    if (bound.length === 0)
      return {
        status: 'down',
        message: `none of ${enabled.length} enabled connector(s) is bound by a running worker (${enabled.join(', ')})`,
        response_time_ms,
      };
    return {
      status: 'up',
      message: `${bound.length} of ${enabled.length} enabled connector(s) bound by the workers (${bound.join(', ')})`,
      response_time_ms,
    };
  }
}
