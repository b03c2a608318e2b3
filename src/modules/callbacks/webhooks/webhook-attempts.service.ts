import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import type { CallbackJob } from '../callback-job.js';
import { WebhookDeliveryStore } from './webhook-delivery.store.js';
import { WebhookEndpointStore } from './webhook-endpoint.store.js';
import { WebhookMetrics } from './webhooks.metrics.js';

/** What the sender tells of one attempt at a webhook event. */
export interface WebhookAttempt {
  httpStatus: number | null;
  error: string | null;
  delivered: boolean;
  /** A failed attempt that was the event's last. */
  last: boolean;
  /** The delay of the next attempt, as the backoff schedule reckons it (jitter aside). */
  retryInMs: number;
}

/**
 * The sender's side of webhook events: the endpoint's secret (none when the endpoint is gone
 * or disabled, so the event is not attempted), then each attempt on the delivery log and the
 * endpoint's health: a 2xx stops its failing clock; a failure starts it, and disables the
 * endpoint once it has run WEBHOOK_DISABLE_AFTER_HOURS.
 */
@Injectable()
export class WebhookAttempts {
  private readonly logger = new Logger('Webhooks');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly endpoints: WebhookEndpointStore,
    private readonly deliveries: WebhookDeliveryStore,
    private readonly metrics: WebhookMetrics,
  ) {}

  /** The secret to sign with, or undefined when the event is not to be sent (it stays logged). */
  async secretOf(job: CallbackJob): Promise<string | undefined> {
    const endpoint = job.webhookId ? await this.endpoints.byUuid(job.webhookId) : undefined;
    if (!endpoint) return undefined;
    if (endpoint.status !== 'enabled') {
      await this.deliveries.notDue(job.payload.event_id, endpoint.uuid);
      return undefined;
    }
    return endpoint.secret;
  }

  /** The sender has taken these copies of an event's job without an attempt (delivery ids). */
  async taken(deliveryIds: string[]): Promise<void> {
    await this.deliveries.taken(deliveryIds);
  }

  async attempted(job: CallbackJob, a: WebhookAttempt): Promise<void> {
    const webhookId = job.webhookId!;
    const next = a.delivered || a.last ? null : new Date(Date.now() + a.retryInMs);
    await this.deliveries.attempted(job.payload.event_id, webhookId, {
      httpStatus: a.httpStatus,
      error: a.error,
      delivered: a.delivered,
      nextAttemptAt: next,
    });
    if (a.delivered) return this.endpoints.succeeded(webhookId);
    const hours = this.config.webhookDisableAfterHours;
    const reason = `no attempt answered with 2xx for ${hours} hour(s); last: ${a.error ?? 'no answer'}`;
    if (await this.endpoints.failed(webhookId, hours, reason)) {
      this.metrics.endpointDisabled();
      this.logger.warn(`webhook endpoint ${webhookId} disabled: ${reason}`);
    }
  }
}
