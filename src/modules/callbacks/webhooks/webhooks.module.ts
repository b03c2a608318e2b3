import { Module } from '@nestjs/common';
import { CallbackQueueModule } from '../callback-queue.module.js';
import { WebhookEvents } from './webhook-events.service.js';
import { WebhookStoreModule } from './webhook-store.module.js';

export const WEBHOOK_STATE_LISTENER = Symbol('WEBHOOK_STATE_LISTENER');

/**
 * Events to webhook endpoints, for a process with queues: `WebhookEvents.publish` for any
 * feature, and the message.* events as one of delivery's state-change listeners.
 */
@Module({
  imports: [CallbackQueueModule, WebhookStoreModule],
  providers: [WebhookEvents, { provide: WEBHOOK_STATE_LISTENER, useExisting: WebhookEvents }],
  exports: [WebhookEvents, WEBHOOK_STATE_LISTENER, WebhookStoreModule],
})
export class WebhooksModule {
  static readonly listener = WEBHOOK_STATE_LISTENER;
}
