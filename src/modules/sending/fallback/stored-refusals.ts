import { InsufficientBalance } from '../../balance/ledger.store.js';
import { SpendLimitExceeded } from '../../balance/spend-limits.js';
import type { CheckedRequest } from '../send.types.js';

/** The reason a fallback SMS is stored REJECTED with, for a refusal of the whole request; null for any other error. */
export function refusalCode(err: unknown): string | null {
  if (err instanceof InsufficientBalance) return 'INSUFFICIENT_BALANCE';
  if (err instanceof SpendLimitExceeded) return 'SPEND_LIMIT_EXCEEDED';
  return null;
}

/** Every accepted recipient REJECTED with `reason`, nothing charged. */
export function refuseAccepted(p: CheckedRequest, reason: string): void {
  for (const e of p.accepted) {
    e.status = 'REJECTED';
    e.reason = reason;
    e.sendAt = undefined;
  }
  p.accepted = [];
  p.priced = { ...p.priced, total: '0', costs: p.priced.costs.map(() => '0') };
  p.deferred = 0;
}
