import { CallbackListenerModule } from '../modules/callbacks/callback-listener.module.js';
import { stateChangeListeners } from '../modules/delivery/lifecycle/state-change-listeners.module.js';
import { WebhooksModule } from '../modules/callbacks/webhooks/webhooks.module.js';
import { SmppReceiptListenerModule } from '../modules/smpp-server/receipts/smpp-receipt-listener.module.js';
import { VerifyListenerModule } from '../modules/verify/verify-listener.module.js';

/** Every feature told of each committed state change: the callback outbox, webhook events, SMPP receipts, verification codes' masking. */
export const STATE_LISTENERS = stateChangeListeners(
  CallbackListenerModule,
  WebhooksModule,
  SmppReceiptListenerModule,
  VerifyListenerModule,
);
