import { Module } from '@nestjs/common';
import { MessageStore } from './message.store.js';

/** Owns the message tables: every statement on them goes through MessageStore. */
@Module({
  providers: [MessageStore],
  exports: [MessageStore],
})
export class MessagesModule {}
