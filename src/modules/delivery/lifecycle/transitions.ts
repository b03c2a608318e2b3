import type { MessageStatus } from '../../messages/channel.js';

/**
 * The life of a message as data: from which states each state may be reached. A state never
 * goes back; an accepted message starts ACKNOWLEDGED, or SCHEDULED when it waits for send_at.
 *
 *   SCHEDULED ─► ACKNOWLEDGED ─► SENT ─► DELIVERED | UNDELIVERED | EXPIRED | REJECTED
 *       │             │                  (a report may overtake our own record of SENT: these
 *       │             │                   are reached from ACKNOWLEDGED too)
 *       │             └──────► FAILED    (never handed over: out of attempts)
 *       └─────────────┴──────► CANCELLED (cancelled before hand-over)
 *                              EXPIRED   (validity elapsed before hand-over)
 */
export const ALLOWED_FROM: Readonly<Record<MessageStatus, readonly MessageStatus[]>> = {
  SCHEDULED: [],
  ACKNOWLEDGED: ['SCHEDULED'],
  SENT: ['ACKNOWLEDGED'],
  DELIVERED: ['ACKNOWLEDGED', 'SENT'],
  UNDELIVERED: ['ACKNOWLEDGED', 'SENT'],
  EXPIRED: ['SCHEDULED', 'ACKNOWLEDGED', 'SENT'],
  REJECTED: ['ACKNOWLEDGED', 'SENT'],
  FAILED: ['ACKNOWLEDGED'],
  CANCELLED: ['SCHEDULED', 'ACKNOWLEDGED'],
};

/**
 * The states whose message is refunded on entry: it was charged and never reached the provider,
 * or the provider refused it. (EXPIRED is refunded only when the validity elapsed before
 * hand-over: that transition asks for it.)
 */
export const REFUNDED_ON_ENTRY: ReadonlySet<MessageStatus> = new Set(['FAILED', 'REJECTED', 'CANCELLED']);

export function mayMove(from: MessageStatus, to: MessageStatus): boolean {
  return ALLOWED_FROM[to].includes(from);
}
