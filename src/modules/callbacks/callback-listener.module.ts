import { Module } from '@nestjs/common';
import { CallbackOutbox } from './callback.outbox.js';
import { CallbackQueueModule } from './callback-queue.module.js';

export const CALLBACK_STATE_LISTENER = Symbol('CALLBACK_STATE_LISTENER');

/**
 * The callback outbox as one of delivery's state-change listeners (stateChangeListeners in
 * delivery/lifecycle/state-change-listeners.module.ts): each committed change may owe a callback.
 */
@Module({
  imports: [CallbackQueueModule],
  providers: [{ provide: CALLBACK_STATE_LISTENER, useExisting: CallbackOutbox }],
  exports: [CALLBACK_STATE_LISTENER],
})
export class CallbackListenerModule {
  static readonly listener = CALLBACK_STATE_LISTENER;
}
