import { Module } from '@nestjs/common';
import { MessagesModule } from '../messages/messages.module.js';
import { SuppressionsModule } from '../suppressions/suppressions.module.js';
import { InboundNumberStore } from './inbound-number.store.js';
import { InboundReceiver } from './inbound.receiver.js';
import { InboundStore } from './inbound.store.js';

/** Inbound numbers, messages and settings, and the receiving path: MySQL only (the CLI uses it too). */
@Module({
  imports: [MessagesModule, SuppressionsModule],
  providers: [InboundNumberStore, InboundStore, InboundReceiver],
  exports: [InboundNumberStore, InboundStore, InboundReceiver],
})
export class InboundModule {}
