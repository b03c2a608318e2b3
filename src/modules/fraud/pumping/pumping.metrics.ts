import { Inject, Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { MetricsService } from '../../metrics/metrics.service.js';
import type { BlockKind, GuardedSource } from './pumping-rules.js';

/**
 * The pumping guard's counts: blocks set (mode `enforced`) or only logged in monitor mode
 * (`monitor`), by kind and by what tripped them, and the codes and replies refused because a
 * block held. No prefix or number is a label: they would be personal data and unbounded.
 */
@Injectable()
export class PumpingMetrics {
  private readonly blocks: Counter<'kind' | 'source' | 'mode'>;
  private readonly refused: Counter<'source'>;

  constructor(@Inject(MetricsService) metrics: MetricsService) {
    this.blocks = new Counter({
      name: 'bulk_pumping_blocks_total',
      help: 'Pumping-guard blocks of a prefix or country, by kind, by source (verification, auto-reply) and mode (enforced; monitor: would-be blocks, nothing refused)',
      labelNames: ['kind', 'source', 'mode'] as const,
      registers: [metrics.registry],
    });
    this.refused = new Counter({
      name: 'bulk_pumping_refused_total',
      help: 'Verification codes and auto-replies refused (429 SUSPECTED_PUMPING, nothing sent or charged), by source',
      labelNames: ['source'] as const,
      registers: [metrics.registry],
    });
    // Every series exists from the start, so an alert's increase() never starts from nothing.
    for (const kind of ['prefix', 'country'] as const)
      for (const source of ['verification', 'auto-reply'] as const)
        for (const mode of ['enforced', 'monitor'] as const) this.blocks.inc({ kind, source, mode }, 0);
    for (const source of ['verification', 'auto-reply'] as const) this.refused.inc({ source }, 0);
  }

  blocked(kind: BlockKind, source: GuardedSource, monitor: boolean): void {
    this.blocks.inc({ kind, source, mode: monitor ? 'monitor' : 'enforced' });
  }

  refusedOne(source: GuardedSource): void {
    this.refused.inc({ source });
  }
}
