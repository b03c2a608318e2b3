import { Counter, Gauge, type Registry } from 'prom-client';

export interface ConnectorGaugeSource {
  gauges(): Array<{ connector: string; bound: boolean; inFlight: number; queued: number }>;
}

/** Per-connector figures on /metrics: what went out, was throttled or failed, and each bind's state now. */
export class ConnectorMetrics {
  private readonly submits: Counter<'connector' | 'outcome'>;

  constructor(registry: Registry, source: ConnectorGaugeSource) {
    this.submits = new Counter({
      name: 'bulk_connector_messages_total',
      help: 'SMS handed to each SMPP connector, by outcome: sent (accepted by the SMSC), rejected (refused for good), failed (not handed over: tried again or on another connector), throttled (submit_sm answered ESME_RTHROTTLED or ESME_RMSGQFUL, sent again later)',
      labelNames: ['connector', 'outcome'] as const,
      registers: [registry],
    });
    const gauge = (
      name: string,
      help: string,
      pick: (g: ReturnType<ConnectorGaugeSource['gauges']>[number]) => number,
    ) =>
      new Gauge({
        name,
        help,
        labelNames: ['connector'] as const,
        registers: [registry],
        collect() {
          this.reset();
          for (const g of source.gauges()) this.set({ connector: g.connector }, pick(g));
        },
      });
    gauge('bulk_connector_bound', 'Whether this process is bound to the connector (1) or not (0)', (g) =>
      g.bound ? 1 : 0,
    );
    gauge(
      'bulk_connector_in_flight',
      'submit_sm sent to the connector and not yet answered',
      (g) => g.inFlight,
    );
    gauge('bulk_connector_queued', 'submit_sm waiting for the connector window or its TPS', (g) => g.queued);
  }

  count(connector: string, outcome: 'sent' | 'rejected' | 'failed' | 'throttled', n = 1): void {
    if (n > 0) this.submits.inc({ connector, outcome }, n);
  }
}
