import { Module } from '@nestjs/common';
import { CallbackStoreModule } from '../callbacks/callback-store.module.js';
import { WebhookStoreModule } from '../callbacks/webhooks/webhook-store.module.js';
import { MessagesModule } from '../messages/messages.module.js';
import { SmppReceiptStoreModule } from '../smpp-server/receipts/smpp-receipt-store.module.js';
import { SuppressionsModule } from '../suppressions/suppressions.module.js';
import { InboundStoresModule } from './inbound-stores.module.js';
import { InboundReceiver } from './inbound.receiver.js';

/** Inbound numbers, messages and settings, and the receiving path: MySQL only (the CLI uses it too). */
@Module({
  imports: [
    MessagesModule,
    SuppressionsModule,
    InboundStoresModule,
    CallbackStoreModule,
    SmppReceiptStoreModule,
    WebhookStoreModule,
  ],
  providers: [InboundReceiver],
  exports: [InboundStoresModule, InboundReceiver],
})
export class InboundModule {}
