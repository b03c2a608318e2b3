import { Module } from '@nestjs/common';
import { RedisModule } from '../../../platform/redis/redis.module.js';
import { MetricsModule } from '../../metrics/metrics.module.js';
import { RejectedReceiptsRelay } from './rejected-receipts.relay.js';
import { SmppBindMetrics } from './smpp-bind.metrics.js';
import { SmppOutboxSender } from './smpp-outbox.sender.js';
import { SmppServerModule } from '../smpp-server.module.js';
import { SmppReceiptListenerModule } from './smpp-receipt-listener.module.js';
import { SmppReceiptStoreModule } from './smpp-receipt-store.module.js';

/**
 * Receipts and inbound SMS out to the binds of this process (an API process): the outbox's
 * sender, the REJECTD receipts of submits stored REJECTED, and the binds gauge.
 */
@Module({
  imports: [SmppServerModule, SmppReceiptListenerModule, SmppReceiptStoreModule, RedisModule, MetricsModule],
  providers: [SmppOutboxSender, SmppBindMetrics, RejectedReceiptsRelay],
  exports: [SmppOutboxSender],
})
export class SmppOutboxModule {}
