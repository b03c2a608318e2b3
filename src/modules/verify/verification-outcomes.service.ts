import { Injectable, Logger } from '@nestjs/common';
import { RepeatLimiter } from '../../platform/logging/repeat-limiter.js';
import { WebhookEvents } from '../callbacks/webhooks/webhook-events.service.js';
import { VerificationConversions } from './verification-conversion.cache.js';
import type { VerificationOutcome, VerificationRow } from './verification.store.js';
import { VerifyMetrics } from './verify.metrics.js';

/** The outcomes an account's endpoints hear of; a cancel is the account's own doing. */
const EVENT_OF: Partial<Record<VerificationRow['status'], 'verification.approved' | 'verification.failed'>> =
  {
    approved: 'verification.approved',
    max_attempts_reached: 'verification.failed',
    expired: 'verification.failed',
  };

/**
 * Where every verification reaches its final state (approved, max_attempts_reached, expired,
 * canceled), whichever path closed it: a check, a cancel, a newer start, the expiry sweep.
 * Whatever must follow an outcome (its count; the country's conversion read anew; the
 * verification.* event to the account's webhook endpoints) is added here, once.
 */
@Injectable()
export class VerificationOutcomes {
  private readonly warnings = new RepeatLimiter(new Logger('Verify'));

  constructor(
    private readonly metrics: VerifyMetrics,
    private readonly webhooks: WebhookEvents,
    private readonly conversions: VerificationConversions,
  ) {}

  closed(v: VerificationOutcome): void {
    this.metrics.count(v.country, v.status);
    this.conversions.forget({ accountId: String(v.account_id), testMode: Boolean(v.test_mode) }, v.country);
    const type = EVENT_OF[v.status];
    if (!type) return;
    // The answer to the check does not wait for the event; the event never holds the code.
    void this.webhooks
      .publish({
        accountId: String(v.account_id),
        type,
        test: Boolean(v.test_mode),
        occurredAt: v.closed_at ?? new Date(),
        data: {
          verification_id: v.id,
          to: v.recipient,
          channel: v.channel,
          country: v.country,
          status: v.status,
          attempts: v.attempts,
        },
      })
      .catch((err: Error) => this.warnings.warn(`${type} event not kept: ${err.message}`, 'event'));
  }
}
