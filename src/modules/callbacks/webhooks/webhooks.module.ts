import { Module } from '@nestjs/common';
import { MessagesModule } from '../../messages/messages.module.js';
import { MetricsModule } from '../../metrics/metrics.module.js';
import { CallbackQueueModule } from '../callback-queue.module.js';
import { CallbackStoreModule } from '../callback-store.module.js';
import { WebhookEvents } from './webhook-events.service.js';
import { WebhookStoreModule } from './webhook-store.module.js';
import { WebhookCatchUpMetrics } from './webhooks.metrics.js';

export const WEBHOOK_STATE_LISTENER = Symbol('WEBHOOK_STATE_LISTENER');

/**
 * Events to webhook endpoints, for a process with queues: `WebhookEvents.publish` for any
 * feature, and the message.* events as one of delivery's state-change listeners (kept again
 * from the messages' history by the recovery sweep when a crash lost them).
 */
@Module({
  imports: [CallbackQueueModule, CallbackStoreModule, MessagesModule, MetricsModule, WebhookStoreModule],
  providers: [
    WebhookEvents,
    WebhookCatchUpMetrics,
    { provide: WEBHOOK_STATE_LISTENER, useExisting: WebhookEvents },
  ],
  exports: [WebhookEvents, WEBHOOK_STATE_LISTENER, WebhookStoreModule],
})
export class WebhooksModule {
  static readonly listener = WEBHOOK_STATE_LISTENER;
}
