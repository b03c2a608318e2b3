import { Inject, Injectable } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { MetricsService } from '../metrics/metrics.service.js';

/** Failing callback targets named in the gauge per process; the label's values are at most these and `other`. */
export const FAILING_TARGETS_NAMED = 10;
/** The label value that counts the failing targets beyond FAILING_TARGETS_NAMED (a callback URL's origin never reads so). */
export const OTHER_TARGETS = 'other';

/** The callback sender's counts: attempts by outcome, events held by an open circuit, failing targets. */
@Injectable()
export class CallbackMetrics {
  private readonly attempts: Counter<'outcome'>;
  private readonly holds: Counter;
  private failing: () => string[] = () => [];

  constructor(@Inject(MetricsService) metrics: MetricsService) {
    this.attempts = new Counter({
      name: 'bulk_callback_attempts_total',
      help: 'Delivery callback attempts, by outcome (delivered, http_error, network_error, refused, circuit_open; test_dropped: a test event not sent to a failing target; hold_expired: an event held by an open circuit past CALLBACK_MAX_HOLD_MS, dropped)',
      labelNames: ['outcome'] as const,
      registers: [metrics.registry],
    });
    this.holds = new Counter({
      name: 'bulk_callback_held_total',
      help: 'Callback events held back, spending no attempt, while their circuit (account and target) was open',
      registers: [metrics.registry],
    });
    // Callback targets (scheme, host and port) whose recent calls all failed, read at scrape
    // time: one series per failing target only, so the label set stays as small as the trouble.
    // Tenants choose the hosts, and one could make thousands fail (a new host per send): only
    // the first FAILING_TARGETS_NAMED (in the order `failing` lists them, which is stable while
    // they keep failing) are named, the rest counted in one series, `target="other"`.
    const failing = () => this.failing();
    new Gauge({
      name: 'bulk_callback_target_failing',
      help: `Callback targets of this process whose circuit opened (too many failures in a row) and that have not answered well since: 1 each for the first ${FAILING_TARGETS_NAMED}, target="other" counts the rest`,
      labelNames: ['target'] as const,
      registers: [metrics.registry],
      collect() {
        this.reset();
        const targets = failing();
        for (const target of targets.slice(0, FAILING_TARGETS_NAMED)) this.set({ target }, 1);
        if (targets.length > FAILING_TARGETS_NAMED)
          this.set({ target: OTHER_TARGETS }, targets.length - FAILING_TARGETS_NAMED);
      },
    });
  }

  attempt(outcome: string): void {
    this.attempts.inc({ outcome });
  }

  /** A callback event held back (not attempted) while its account's circuit to the target is open. */
  held(): void {
    this.holds.inc();
  }

  /** Where the failing-targets gauge reads this process's failing targets (the sender's gate). */
  watchFailingTargets(failing: () => string[]): void {
    this.failing = failing;
  }
}
