import { Inject, Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { MetricsService } from '../metrics/metrics.service.js';
import type { VerificationStatus } from './verification.store.js';

/**
 * Verifications by destination country (ISO alpha-2; `ZZ` for e-mail and numbers of no known
 * country) and status: `pending` counts each start, the other statuses each verification's
 * outcome, so approved / pending over a window is the country's conversion. No code, number or
 * account is ever a label.
 */
@Injectable()
export class VerifyMetrics {
  private readonly verifications: Counter<'country' | 'status'>;

  constructor(@Inject(MetricsService) metrics: MetricsService) {
    this.verifications = new Counter({
      name: 'bulk_verifications_total',
      help: 'Verifications by destination country and status: pending counts starts, approved, max_attempts_reached, expired and canceled count outcomes',
      labelNames: ['country', 'status'] as const,
      registers: [metrics.registry],
    });
  }

  count(country: string, status: VerificationStatus): void {
    this.verifications.inc({ country, status });
  }
}
