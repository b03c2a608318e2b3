import { Inject, Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { MetricsService } from '../metrics/metrics.service.js';

/**
 * Messages entering each state, counted where they enter it: sending's intake (ACKNOWLEDGED,
 * REJECTED) and delivery's committed transitions after it. Both build on messages, so the one
 * counter lives here.
 */
@Injectable()
export class MessageMetrics {
  private readonly messages: Counter<'channel' | 'status'>;

  constructor(@Inject(MetricsService) metrics: MetricsService) {
    this.messages = new Counter({
      name: 'bulk_messages_total',
      help: 'Messages entering a state, by channel: ACKNOWLEDGED (accepted) and REJECTED at intake, then SENT, DELIVERED, UNDELIVERED, EXPIRED, FAILED, REJECTED as they happen',
      labelNames: ['channel', 'status'] as const,
      registers: [metrics.registry],
    });
  }

  /** `n` messages of `channel` entered `status`. */
  entered(channel: string, status: string, n = 1): void {
    if (n) this.messages.inc({ channel, status }, n);
  }
}
