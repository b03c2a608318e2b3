import { Module } from '@nestjs/common';
import { MessagesModule } from '../messages/messages.module.js';
import { SuppressionsModule } from '../suppressions/suppressions.module.js';
import { InboundStoresModule } from './inbound-stores.module.js';
import { InboundReceiver } from './inbound.receiver.js';

/** Inbound numbers, messages and settings, and the receiving path: MySQL only (the CLI uses it too). */
@Module({
  imports: [MessagesModule, SuppressionsModule, InboundStoresModule],
  providers: [InboundReceiver],
  exports: [InboundStoresModule, InboundReceiver],
})
export class InboundModule {}
