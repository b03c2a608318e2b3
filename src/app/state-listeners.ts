import { CallbackListenerModule } from '../modules/callbacks/callback-listener.module.js';
import { stateChangeListeners } from '../modules/delivery/state-change-listeners.js';

/** Every feature told of each committed state change: the callback outbox. */
export const STATE_LISTENERS = stateChangeListeners(CallbackListenerModule);
