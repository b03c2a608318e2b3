import { Module } from '@nestjs/common';
import { MetricsModule } from '../metrics/metrics.module.js';
import { DeliverySuppressions } from './delivery-suppressions.service.js';
import { SuppressionCheck } from './suppression-check.service.js';
import { SuppressionMetrics } from './suppressions.metrics.js';
import { SuppressionStore } from './suppression.store.js';
import { SuppressionsService } from './suppressions.service.js';

/** The suppression list: store and service, database only (the CLI and the workers use it too). */
@Module({
  imports: [MetricsModule],
  providers: [
    SuppressionMetrics,
    SuppressionStore,
    SuppressionsService,
    SuppressionCheck,
    DeliverySuppressions,
  ],
  exports: [
    SuppressionMetrics,
    SuppressionStore,
    SuppressionsService,
    SuppressionCheck,
    DeliverySuppressions,
  ],
})
export class SuppressionsModule {}
