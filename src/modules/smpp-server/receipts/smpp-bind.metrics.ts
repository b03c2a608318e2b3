import { Inject, Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { MetricsService } from '../../metrics/metrics.service.js';
import { BoundSessions } from '../bound-sessions.registry.js';

/** Customers' binds held by this process, by type, read at scrape time (sum over processes for the total). */
@Injectable()
export class SmppBindMetrics {
  constructor(@Inject(MetricsService) metrics: MetricsService, sessions: BoundSessions) {
    new Gauge({
      name: 'bulk_smpp_binds',
      help: "Customers' SMPP binds held by this process, by bind type (transmitter, receiver, transceiver)",
      labelNames: ['bind_type'] as const,
      registers: [metrics.registry],
      collect() {
        this.reset();
        for (const type of ['transmitter', 'receiver', 'transceiver'] as const)
          this.set({ bind_type: type }, 0);
        for (const s of sessions.all()) this.inc({ bind_type: s.bindType });
      },
    });
  }
}
