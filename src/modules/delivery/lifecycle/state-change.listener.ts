import type { LockedMessage } from '../../messages/message.store.js';
import type { MessageStatus } from '../../messages/channel.js';

/** A state change whose transaction has committed, with the message as it was locked for it. */
export interface CommittedChange {
  message: LockedMessage;
  status: MessageStatus;
  reason: string | null;
  at: Date;
}

/**
 * Told of every state change after its transaction commits, and asked to catch up on each round
 * of the recovery sweep. Callbacks implement it (a signed POST per change when the request named
 * a callback_url), so do SMPP receipts; the composition root binds them all through one fan-out
 * (lifecycle/state-change-listeners.module.ts), so delivery depends on neither.
 */
export interface StateChangeListener {
  committed(changes: CommittedChange[]): Promise<void>;
  /** Returns how many items it caught up on. */
  recover(): Promise<number>;
}

export const STATE_CHANGE_LISTENER = Symbol('STATE_CHANGE_LISTENER');
