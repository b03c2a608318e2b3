import { Inject, Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { MetricsService } from '../../metrics/metrics.service.js';

/**
 * What became of customers' submit_sm and data_sm: `accepted` (stored, answered 0), `rejected`
 * (stored REJECTED, answered 0 and told by a REJECTD receipt), `throttled` (over the
 * credential's TPS, answered 0x58), `refused` (any other error status: nothing stored).
 */
export type SubmitOutcome = 'accepted' | 'rejected' | 'throttled' | 'refused';

@Injectable()
export class SmppSubmitMetrics {
  private readonly submits: Counter<'outcome'>;

  constructor(@Inject(MetricsService) metrics: MetricsService) {
    this.submits = new Counter({
      name: 'bulk_smpp_submits_total',
      help: "Customers' SMPP submit_sm and data_sm, by outcome (accepted, rejected, throttled, refused)",
      labelNames: ['outcome'] as const,
      registers: [metrics.registry],
    });
    // Every outcome has a series from the start, so a rate over it never starts from nothing.
    for (const outcome of ['accepted', 'rejected', 'throttled', 'refused'] as const)
      this.submits.inc({ outcome }, 0);
  }

  count(outcome: SubmitOutcome): void {
    this.submits.inc({ outcome });
  }
}
