import { Module } from '@nestjs/common';
import { STATE_CHANGE_LISTENER } from '../delivery/state-change-listener.js';
import { CallbackOutbox } from './callback-outbox.js';
import { CallbackQueueModule } from './callback-queue.module.js';

/** The callback outbox as delivery's state-change listener: each committed change may owe a callback. */
@Module({
  imports: [CallbackQueueModule],
  providers: [{ provide: STATE_CHANGE_LISTENER, useExisting: CallbackOutbox }],
  exports: [STATE_CHANGE_LISTENER],
})
export class CallbackListenerModule {}
