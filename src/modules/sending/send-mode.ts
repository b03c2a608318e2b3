import type { AuthContext } from '../api-keys/auth/auth-context.js';
import type { SpendCharge, SpendLimitExceeded } from '../balance/spend-limits.service.js';
import { AppException } from '../../platform/errors/app.exception.js';

/** A test key's requests are stored and answered as live ones, but never charged nor dispatched to a provider. */
export function isTestKey(auth: AuthContext): boolean {
  return auth.key.mode === 'test';
}

/** What a send adds toward the daily spend limits: nothing for a test key. */
export function spendOf(auth: AuthContext, cost: string, at: Date): SpendCharge | null {
  if (isTestKey(auth)) return null;
  return {
    accountId: auth.account.id,
    apiKeyId: auth.key.id,
    amount: cost,
    at,
    accountLimit: auth.account.dailyLimit ?? null,
    keyLimit: auth.key.dailyLimit ?? null,
    parentId: auth.account.parentId ?? null,
    parentLimit: auth.parent?.dailyLimit ?? null,
  };
}

/** 402 with what is left today of the tighter limit. */
export function spendLimitRefusal(err: SpendLimitExceeded, cost: string, currency: string): AppException {
  const whose =
    err.scope === 'key'
      ? "this API key's"
      : err.scope === 'parent'
        ? "the parent account's (covering its sub-accounts)"
        : "the account's";
  return new AppException(
    'SPEND_LIMIT_EXCEEDED',
    `This request costs ${cost} ${currency}, more than is left today (UTC) under ${whose} daily spend limit of ${err.limit} ${currency}.`,
    [{ field: 'daily_limit', message: `remaining ${err.remaining} ${currency}` }],
  );
}
