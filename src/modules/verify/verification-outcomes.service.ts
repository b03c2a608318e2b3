import { Injectable } from '@nestjs/common';
import type { VerificationRow } from './verification.store.js';
import { VerifyMetrics } from './verify.metrics.js';

/**
 * Where every verification reaches its final state (approved, max_attempts_reached, expired,
 * canceled), whichever path closed it: a check, a cancel, a newer start, the expiry sweep.
 * Whatever must follow an outcome (its count now; an event to the account's endpoints) is
 * added here, once.
 */
@Injectable()
export class VerificationOutcomes {
  constructor(private readonly metrics: VerifyMetrics) {}

  closed(v: VerificationRow): void {
    this.metrics.count(v.country, v.status);
  }
}
