import { InsufficientBalance } from '../balance/ledger.store.js';
import { SpendLimitExceeded } from '../balance/spend-limits.service.js';
import type { SendInput } from './channel-policy.js';
import type { CheckedRequest } from './send.types.js';

/** The reason a fallback SMS is stored REJECTED with, for a refusal of the whole request; null for any other error. */
export function refusalCode(err: unknown): string | null {
  if (err instanceof InsufficientBalance) return 'INSUFFICIENT_BALANCE';
  if (err instanceof SpendLimitExceeded) return 'SPEND_LIMIT_EXCEEDED';
  return null;
}

/**
 * The reason a send is stored REJECTED with instead of refused as a whole, or null: a fallback
 * SMS for a balance or a limit; an SMPP submit for a spend limit (its client hears of it in a
 * receipt, as of any other refusal after acceptance; a balance that cannot pay is its own answer).
 */
export function storedRefusal(input: SendInput, err: unknown): string | null {
  if (input.fallbackOf) return refusalCode(err);
  if (input.smpp && err instanceof SpendLimitExceeded) return 'SPEND_LIMIT_EXCEEDED';
  return null;
}

/**
 * Whether a send none of whose recipients was accepted is stored all the same (REJECTED): a
 * fallback SMS always, so its chat message shows it; an SMPP submit unless its number is
 * invalid (that one is refused in its submit_sm_resp).
 */
export function storesRefused(input: SendInput, entries: Array<{ reason?: string }>): boolean {
  if (input.fallbackOf) return true;
  return !!input.smpp && entries.length > 0 && entries.every((e) => e.reason !== 'INVALID_NUMBER');
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
