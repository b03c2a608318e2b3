import { iso } from '../../platform/cli/output.js';
import { money } from '../../platform/money/money.js';
import type { ApiKey } from './api-key.entity.js';

/** What listings show: never the key or its hash. */
export function keyView(k: ApiKey & { username?: string }) {
  const expired = !!k.expiresAt && k.expiresAt.getTime() <= Date.now();
  return {
    id: k.id,
    name: k.name,
    username: k.username ?? null,
    key_prefix: k.keyPrefix,
    mode: k.mode,
    status: k.revokedAt ? 'revoked' : expired ? 'expired' : 'active',
    allowed_ips: k.allowedIps ?? [],
    expires_at: iso(k.expiresAt),
    rate_limit: k.rateLimit && k.rateWindowSeconds ? `${k.rateLimit}/${k.rateWindowSeconds}` : null,
    daily_limit: k.dailyLimit === null || k.dailyLimit === undefined ? null : money(k.dailyLimit),
    priority: k.priority ?? 'normal',
    revoked_at: iso(k.revokedAt),
    last_used_at: iso(k.lastUsedAt),
    created_at: iso(k.createdAt),
  };
}

/** The JSON of create and rotate: the key right after its id. */
export function withSecret(view: ReturnType<typeof keyView>, key: string) {
  const { id, ...rest } = view;
  return { id, key, ...rest };
}
