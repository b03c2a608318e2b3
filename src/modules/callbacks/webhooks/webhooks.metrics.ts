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

/**
 * The recovery sweep's catch-up of message.* events (WebhookEvents, in every process that
 * publishes events): marks moved past rows older than the delivery log keeps.
 */
@Injectable()
export class WebhookCatchUpMetrics {
  private readonly skipped: Counter;

  constructor(@Inject(MetricsService) metrics: MetricsService) {
    this.skipped = new Counter({
      name: 'bulk_webhook_catch_up_skipped_total',
      help: "Times the recovery sweep's event catch-up found its mark older than the delivery log keeps and moved it past the older rows unread, by journal",
      labelNames: ['journal'],
      registers: [metrics.registry],
    });
  }

  catchUpSkipped(journal: string): void {
    this.skipped.inc({ journal });
  }
}
