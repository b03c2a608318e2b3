import { Inject, Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { MetricsService } from '../../metrics/metrics.service.js';

/** Webhook endpoints disabled for answering no attempt with 2xx for WEBHOOK_DISABLE_AFTER_HOURS. */
@Injectable()
export class WebhookMetrics {
  private readonly disabled: Counter;

  constructor(@Inject(MetricsService) metrics: MetricsService) {
    this.disabled = new Counter({
      name: 'bulk_webhook_endpoints_disabled_total',
      help: 'Webhook endpoints disabled automatically after failing every attempt for WEBHOOK_DISABLE_AFTER_HOURS',
      registers: [metrics.registry],
    });
  }

  endpointDisabled(): void {
    this.disabled.inc();
  }
}
