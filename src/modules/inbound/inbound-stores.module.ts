import { Module } from '@nestjs/common';
import { InboundNumberStore } from './inbound-number.store.js';
import { InboundStore } from './inbound.store.js';

/** Inbound numbers, messages and settings as stored: what the CLI's numbers and settings commands need, without the receiving path. */
@Module({
  providers: [InboundNumberStore, InboundStore],
  exports: [InboundNumberStore, InboundStore],
})
export class InboundStoresModule {}
