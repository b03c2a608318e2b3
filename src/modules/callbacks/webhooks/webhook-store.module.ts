import { Module } from '@nestjs/common';
import { WebhookDeliveryStore } from './webhook-delivery.store.js';
import { WebhookEndpointStore } from './webhook-endpoint.store.js';
import { WebhookFanOut } from './webhook-fan-out.service.js';

/** Webhook endpoints, the delivery log and the fan-out of events to them: MySQL only. */
@Module({
  providers: [WebhookEndpointStore, WebhookDeliveryStore, WebhookFanOut],
  exports: [WebhookEndpointStore, WebhookDeliveryStore, WebhookFanOut],
})
export class WebhookStoreModule {}
