import { Module } from '@nestjs/common';
import { RedisModule } from '../../../platform/redis/redis.module.js';
import { MessagesModule } from '../../messages/messages.module.js';
import { SmppReceiptWriter } from './smpp-receipt.writer.js';
import { SmppReceiptStoreModule } from './smpp-receipt-store.module.js';

export const SMPP_RECEIPT_STATE_LISTENER = Symbol('SMPP_RECEIPT_STATE_LISTENER');

/** SMPP receipts as one of delivery's state-change listeners: a final state may owe a deliver_sm. */
@Module({
  imports: [SmppReceiptStoreModule, MessagesModule, RedisModule],
  providers: [SmppReceiptWriter, { provide: SMPP_RECEIPT_STATE_LISTENER, useExisting: SmppReceiptWriter }],
  exports: [SMPP_RECEIPT_STATE_LISTENER, SmppReceiptWriter],
})
export class SmppReceiptListenerModule {
  static readonly listener = SMPP_RECEIPT_STATE_LISTENER;
}
