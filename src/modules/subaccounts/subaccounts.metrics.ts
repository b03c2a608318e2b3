import { Inject, Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { MetricsService } from '../metrics/metrics.service.js';

/** Credit transfers between parent accounts and their sub-accounts over the API. */
@Injectable()
export class SubaccountMetrics {
  private readonly transfers: Counter<'channel' | 'direction' | 'outcome'>;

  constructor(@Inject(MetricsService) metrics: MetricsService) {
    this.transfers = new Counter({
      name: 'bulk_transfers_total',
      help: 'Credit transfers between parent accounts and their sub-accounts over the API, by channel, direction (to_subaccount, to_parent) and outcome (done, insufficient)',
      labelNames: ['channel', 'direction', 'outcome'] as const,
      registers: [metrics.registry],
    });
  }

  /** A credit transfer between a parent account and a sub-account, done or refused for want of credit. */
  transfer(channel: string, toSubaccount: boolean, done: boolean): void {
    this.transfers.inc({
      channel,
      direction: toSubaccount ? 'to_subaccount' : 'to_parent',
      outcome: done ? 'done' : 'insufficient',
    });
  }
}
