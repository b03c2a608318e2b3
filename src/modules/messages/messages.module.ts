import { Module } from '@nestjs/common';
import { MessagePartsStore } from './message-parts.store.js';
import { MessageSearchStore } from './message-search.store.js';
import { MessageStore } from './message.store.js';
import { ScheduleStore } from './schedule.store.js';

/** Owns the message tables: every statement on them goes through MessageStore. */
@Module({
  providers: [MessageStore, MessagePartsStore, ScheduleStore, MessageSearchStore],
  exports: [MessageStore, MessagePartsStore, ScheduleStore, MessageSearchStore],
})
export class MessagesModule {}
