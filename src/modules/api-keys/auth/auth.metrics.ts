import { Inject, Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { MetricsService } from '../../metrics/metrics.service.js';

/** How a username/password check ended (bulk_password_checks_total's outcome label). */
export type PasswordCheckOutcome = 'verified' | 'wrong' | 'remembered' | 'throttled' | 'queue_full';

/** Authentication's counts: requests refused by it and its throttles, and password checks. */
@Injectable()
export class AuthMetrics {
  private readonly refusals: Counter<'reason'>;
  private readonly passwordChecks: Counter<'outcome'>;

  constructor(@Inject(MetricsService) metrics: MetricsService) {
    this.refusals = new Counter({
      name: 'bulk_auth_refusals_total',
      help: 'Requests refused by authentication and its throttles, by reason (invalid_key, expired_key, bad_password, address_throttled, password_throttled, password_busy)',
      labelNames: ['reason'] as const,
      registers: [metrics.registry],
    });
    this.passwordChecks = new Counter({
      name: 'bulk_password_checks_total',
      help: "username/password checks by outcome: verified and wrong were checked against the stored argon2 hash (wrong also counts a username that is not the key account's, which hashes nothing); remembered (a pair verified lately), throttled (key or account over its wrong-password limit) and queue_full (the account already has PASSWORD_CHECK_QUEUE_PER_ACCOUNT checks under way) cost none",
      labelNames: ['outcome'] as const,
      registers: [metrics.registry],
    });
  }

  refused(reason: string): void {
    this.refusals.inc({ reason });
  }

  passwordChecked(outcome: PasswordCheckOutcome): void {
    this.passwordChecks.inc({ outcome });
  }
}
