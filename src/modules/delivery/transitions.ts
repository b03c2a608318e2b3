import type { MessageStatus } from '../messages/channel.js';

/**
 * The life of a message as data: from which states each state may be reached. A state never
 * goes back; ACKNOWLEDGED is where every accepted message starts.
 *
 *   ACKNOWLEDGED ─► SENT ─► DELIVERED | UNDELIVERED | EXPIRED | REJECTED
 *        │                  (a report may overtake our own record of SENT: these are
 *        │                   reached from ACKNOWLEDGED too)
 *        └──────► FAILED   (never handed over: out of attempts)
 */
export const ALLOWED_FROM: Readonly<Record<MessageStatus, readonly MessageStatus[]>> = {
  ACKNOWLEDGED: [],
  SENT: ['ACKNOWLEDGED'],
  DELIVERED: ['ACKNOWLEDGED', 'SENT'],
  UNDELIVERED: ['ACKNOWLEDGED', 'SENT'],
  EXPIRED: ['ACKNOWLEDGED', 'SENT'],
  REJECTED: ['ACKNOWLEDGED', 'SENT'],
  FAILED: ['ACKNOWLEDGED'],
};

/** The states whose message is refunded on entry: it was charged and never reached the provider, or the provider refused it. */
export const REFUNDED_ON_ENTRY: ReadonlySet<MessageStatus> = new Set(['FAILED', 'REJECTED']);

export function mayMove(from: MessageStatus, to: MessageStatus): boolean {
  return ALLOWED_FROM[to].includes(from);
}
