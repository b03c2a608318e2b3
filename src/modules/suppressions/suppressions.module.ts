import { Module } from '@nestjs/common';
import { DeliverySuppressions } from './delivery-suppressions.service.js';
import { SuppressionCheck } from './suppression-check.service.js';
import { SuppressionStore } from './suppression.store.js';
import { SuppressionsService } from './suppressions.service.js';

/** The suppression list: store and service, database only (the CLI and the workers use it too). */
@Module({
  providers: [SuppressionStore, SuppressionsService, SuppressionCheck, DeliverySuppressions],
  exports: [SuppressionStore, SuppressionsService, SuppressionCheck, DeliverySuppressions],
})
export class SuppressionsModule {}
