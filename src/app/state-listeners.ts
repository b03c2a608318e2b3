import { CallbackListenerModule } from '../modules/callbacks/callback-listener.module.js';
import { stateChangeListeners } from '../modules/delivery/lifecycle/state-change-listeners.module.js';
import { SmppReceiptListenerModule } from '../modules/smpp-server/receipts/smpp-receipt-listener.module.js';

/** Every feature told of each committed state change: the callback outbox and SMPP receipts. */
export const STATE_LISTENERS = stateChangeListeners(CallbackListenerModule, SmppReceiptListenerModule);
