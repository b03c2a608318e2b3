import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { PeriodicJob } from '../../platform/periodic/periodic-job.js';
import { VerificationChecks } from './verification-checks.service.js';

const PER_ROUND = 500;

/**
 * Closes pending verifications past their end as `expired`, so every outcome is counted (and
 * told, through VerificationOutcomes) even when nobody checks or reads it again.
 */
@Injectable()
export class VerificationExpiry extends PeriodicJob<void> {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly checks: VerificationChecks,
  ) {
    super('VerificationExpiry', {
      everyMs: config.sweepIntervalMs,
      failure: 'verification expiry failed',
      cause: 'sweep',
    });
  }

  protected async round(): Promise<void> {
    await this.checks.expireDue(PER_ROUND);
  }
}
