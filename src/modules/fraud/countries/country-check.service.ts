import { Injectable } from '@nestjs/common';
import { TtlCache } from '../../../platform/caching/ttl-cache.js';
import type { Channel } from '../../messages/channel.js';
import { countryOfNumber } from '../../messages/windows/recipient-zone.js';
import { COUNTRY_NOT_ALLOWED, CountryPermissions, PREMIUM_NUMBER } from './country-permissions.js';
import { CountryRuleStore } from './country-rule.store.js';
import { isPremiumRate } from './premium-numbers.js';

/**
 * A change made through the CLI (another process) reaches every API process within this long,
 * as price changes do; one made over HTTP is seen at once by the process that made it.
 */
export const COUNTRIES_TTL_MS = 1000;
const MAX_ACCOUNTS = 100_000;

/** What the send pipeline hands over of each recipient. */
export interface CountryCheckedRecipient {
  recipient: string;
  status: 'ACKNOWLEDGED' | 'SCHEDULED' | 'REJECTED';
  reason?: string;
}

/** The channels whose recipients are phone numbers, and so have a country. */
function byNumber(channel: Channel): boolean {
  return channel === 'sms' || channel === 'chat';
}

/**
 * Refuses, before anything is charged, the recipients an account may not send to: those of a
 * country outside its family's (COUNTRY_NOT_ALLOWED), and premium-rate numbers unless the
 * family allows them (PREMIUM_NUMBER). Each account's permissions are remembered for
 * COUNTRIES_TTL_MS, so a send usually checks without a query.
 */
@Injectable()
export class CountryCheck {
  private readonly cache = new TtlCache<CountryPermissions>(COUNTRIES_TTL_MS, MAX_ACCOUNTS);

  constructor(private readonly store: CountryRuleStore) {}

  permissions(accountId: string): Promise<CountryPermissions> {
    return this.cache.get(
      accountId,
      async () => new CountryPermissions(await this.store.familyRules(accountId)),
    );
  }

  /**
   * Refuses the recipients outside the account's permissions: at once while they are remembered
   * (nearly every send; no promise, docs/performance.md#promises), else once they are read.
   */
  apply(accountId: string, channel: Channel, entries: CountryCheckedRecipient[]): void | Promise<void> {
    if (!byNumber(channel)) return;
    const remembered = this.cache.peek(accountId);
    if (remembered) return refuse(remembered, entries);
    return this.permissions(accountId).then((p) => refuse(p, entries));
  }

  /** Forgets what this process remembers of these accounts (after a change to them). */
  forget(accountIds: string[]): void {
    for (const id of accountIds) this.cache.delete(String(id));
  }
}

function refuse(permissions: CountryPermissions, entries: CountryCheckedRecipient[]): void {
  for (const e of entries) {
    if (e.status !== 'ACKNOWLEDGED') continue;
    const country = countryOfNumber(e.recipient);
    if (!permissions.allows(country)) {
      e.status = 'REJECTED';
      e.reason = COUNTRY_NOT_ALLOWED;
    } else if (!permissions.premium && isPremiumRate(e.recipient, country)) {
      e.status = 'REJECTED';
      e.reason = PREMIUM_NUMBER;
    }
  }
}
