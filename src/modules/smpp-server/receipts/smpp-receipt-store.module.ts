import { Module } from '@nestjs/common';
import { MetricsModule } from '../../metrics/metrics.module.js';
import { SmppReceiptMetrics } from './smpp-receipt.metrics.js';
import { SmppReceiptStore } from './smpp-receipt.store.js';

/** The SMPP outbox as stored (MySQL), and its metrics: for the writers (delivery, inbound) and the senders. */
@Module({
  imports: [MetricsModule],
  providers: [SmppReceiptStore, SmppReceiptMetrics],
  exports: [SmppReceiptStore, SmppReceiptMetrics],
})
export class SmppReceiptStoreModule {}
