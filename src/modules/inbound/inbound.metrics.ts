import { Inject, Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { MetricsService } from '../metrics/metrics.service.js';

/** Inbound messages stored, by keyword; short-code keywords are the operator's, so few distinct labels. */
@Injectable()
export class InboundMetrics {
  private readonly messages: Counter<'keyword'>;

  constructor(@Inject(MetricsService) metrics: MetricsService) {
    this.messages = new Counter({
      name: 'bulk_inbound_messages_total',
      help: 'Inbound messages received and stored, by keyword (STOP, START, HELP, a short-code keyword, or none)',
      labelNames: ['keyword'] as const,
      registers: [metrics.registry],
    });
  }

  received(keyword: string | null): void {
    this.messages.inc({ keyword: keyword ?? 'none' });
  }
}
