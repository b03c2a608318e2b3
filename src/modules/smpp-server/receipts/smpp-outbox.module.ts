import { Module } from '@nestjs/common';
import { RedisModule } from '../../../platform/redis/redis.module.js';
import { SmppOutboxSender } from './smpp-outbox.sender.js';
import { SmppReceiptStoreModule } from './smpp-receipt-store.module.js';

/**
 * The outbox's sender, in a process that holds SMPP binds: imported by the SMPP server's module,
 * which provides BoundSessions.
 */
@Module({
  imports: [SmppReceiptStoreModule, RedisModule],
  providers: [SmppOutboxSender],
  exports: [SmppOutboxSender],
})
export class SmppOutboxModule {}
