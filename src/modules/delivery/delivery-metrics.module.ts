import { Module } from '@nestjs/common';
import { MessagesModule } from '../messages/messages.module.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { DeliveryMetrics } from './delivery.metrics.js';

/** Delivery's metrics, one instance per process for the state service and the workers alike. */
@Module({
  imports: [MetricsModule, MessagesModule],
  providers: [DeliveryMetrics],
  exports: [DeliveryMetrics],
})
export class DeliveryMetricsModule {}
