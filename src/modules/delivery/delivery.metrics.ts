import { Inject, Injectable } from '@nestjs/common';
import { Counter, Histogram } from 'prom-client';
import { MessageMetrics } from '../messages/messages.metrics.js';
import { MetricsService } from '../metrics/metrics.service.js';

export interface CommittedTransition {
  channel: string;
  status: string;
  /** When the message was accepted; with `at`, gives the dispatch latency of SENT. */
  createdAt?: Date | null;
  at: Date;
}

/**
 * Delivery's counts: committed state changes (on the messages counter) with the latencies of
 * SENT and DELIVERED, transport failures, and delivery reports that matched no message part.
 */
@Injectable()
export class DeliveryMetrics {
  private readonly dispatchLatency: Histogram<'channel'>;
  private readonly deliveryLatency: Histogram<'channel'>;
  private readonly unmatchedReceipts: Counter<'transport'>;
  private readonly transportFailureCount: Counter<'channel' | 'transport' | 'reason' | 'class'>;

  constructor(
    @Inject(MetricsService) metrics: MetricsService,
    @Inject(MessageMetrics) private readonly messages: MessageMetrics,
  ) {
    this.dispatchLatency = new Histogram({
      name: 'bulk_dispatch_latency_seconds',
      help: 'Time from a message being accepted to it being handed to the provider (SENT), by channel',
      labelNames: ['channel'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900],
      registers: [metrics.registry],
    });
    this.deliveryLatency = new Histogram({
      name: 'bulk_delivery_latency_seconds',
      help: 'Time from a message being accepted to its delivery report saying DELIVERED, by channel',
      labelNames: ['channel'] as const,
      buckets: [0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 14400, 86400],
      registers: [metrics.registry],
    });
    this.unmatchedReceipts = new Counter({
      name: 'bulk_receipts_unmatched_total',
      help: 'Delivery reports that matched no message part when they arrived (kept for late matching), by transport',
      labelNames: ['transport'] as const,
      registers: [metrics.registry],
    });
    this.transportFailureCount = new Counter({
      name: 'bulk_transport_failures_total',
      help: 'Messages a transport did not hand over, by channel, transport, reason code and class (transient: retried; configuration: cannot heal until the configuration changes, retried on a long backoff; permanent: refused, REJECTED)',
      labelNames: ['channel', 'transport', 'reason', 'class'] as const,
      registers: [metrics.registry],
    });
  }

  /** State changes whose transaction has committed. */
  transitionsCommitted(changes: CommittedTransition[]): void {
    for (const c of changes) {
      this.messages.entered(c.channel, c.status);
      if (!c.createdAt || (c.status !== 'SENT' && c.status !== 'DELIVERED')) continue;
      const seconds = Math.max(0, c.at.getTime() - c.createdAt.getTime()) / 1000;
      (c.status === 'SENT' ? this.dispatchLatency : this.deliveryLatency).observe(
        { channel: c.channel },
        seconds,
      );
    }
  }

  transportFailures(channel: string, transport: string, reason: string, cls: string, count: number): void {
    this.transportFailureCount.inc({ channel, transport, reason, class: cls }, count);
  }

  receiptsUnmatched(transport: string, count: number): void {
    this.unmatchedReceipts.inc({ transport }, count);
  }
}
