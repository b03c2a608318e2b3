import { Inject, Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { MetricsService } from '../metrics/metrics.service.js';

/** Recipients refused because the account suppressed them, at intake (sending) or at dispatch (delivery). */
@Injectable()
export class SuppressionMetrics {
  private readonly refusals: Counter<'channel'>;

  constructor(@Inject(MetricsService) metrics: MetricsService) {
    this.refusals = new Counter({
      name: 'bulk_suppressed_recipients_total',
      help: 'Recipients of send requests refused because they are on the suppression list (REJECTED, SUPPRESSED), by channel',
      labelNames: ['channel'] as const,
      registers: [metrics.registry],
    });
  }

  refused(channel: string, n: number): void {
    this.refusals.inc({ channel }, n);
  }
}
