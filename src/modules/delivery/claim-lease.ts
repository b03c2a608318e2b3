import type { MessageStatus } from '../messages/channel.js';

/**
 * How long a claim keeps a cancel or an expiry away. A worker gives its claims up when a slice
 * comes back with messages to retry; one that dies mid-slice leaves them to lapse. Longer than
 * a slice's hand-over and record can take (the dispatcher retries its record for 10 minutes).
 */
export const CLAIM_LEASE_MS = 15 * 60_000;

export const VALIDITY_PERIOD_ELAPSED = 'VALIDITY_PERIOD_ELAPSED';

/** Whether a worker is handing the message over right now (so a cancel or an expiry must leave it). */
export function isBeingHandedOver(
  row: { status: MessageStatus; claimed_at: Date | null },
  at: Date,
): boolean {
  return (
    row.status === 'ACKNOWLEDGED' &&
    row.claimed_at !== null &&
    at.getTime() - new Date(row.claimed_at).getTime() < CLAIM_LEASE_MS
  );
}
