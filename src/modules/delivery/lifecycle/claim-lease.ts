import type { MessageStatus } from '../../messages/channel.js';
import { CLAIM_LEASE_MS } from '../retry-policy.js';

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
