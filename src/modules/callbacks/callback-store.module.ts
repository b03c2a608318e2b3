import { Module } from '@nestjs/common';
import { CallbackStore } from './callback.store.js';
import { EventCatchUpStore } from './event-catch-up.store.js';

/** The callback outbox and attempts as stored: MySQL only, for processes with a queue or without (the CLI). */
@Module({
  providers: [CallbackStore, EventCatchUpStore],
  exports: [CallbackStore, EventCatchUpStore],
})
export class CallbackStoreModule {}
