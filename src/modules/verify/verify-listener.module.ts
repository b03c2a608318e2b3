import { Module } from '@nestjs/common';
import { MessagesModule } from '../messages/messages.module.js';
import { VerificationMaskListener } from './verification-mask.listener.js';
import { VerificationStoreModule } from './verification-store.module.js';

export const VERIFY_STATE_LISTENER = Symbol('VERIFY_STATE_LISTENER');

/**
 * The masking of verification codes as one of delivery's state-change listeners
 * (stateChangeListeners in delivery/state-change-listeners.ts): a code's text is masked once its
 * message is handed over.
 */
@Module({
  imports: [MessagesModule, VerificationStoreModule],
  providers: [{ provide: VERIFY_STATE_LISTENER, useClass: VerificationMaskListener }],
  exports: [VERIFY_STATE_LISTENER],
})
export class VerifyListenerModule {
  static readonly listener = VERIFY_STATE_LISTENER;
}
