import { Inject, Injectable } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { MessageMetrics } from '../messages/messages.metrics.js';
import { MetricsService } from '../metrics/metrics.service.js';

/** The send pipeline's own metrics, on the process's registry. */
@Injectable()
export class SendingMetrics {
  private readonly requests: Counter<'channel'>;
  private readonly windowDeferrals: Counter<'channel'>;
  private readonly testRequests: Counter<'channel'>;
  private readonly spendLimitRefusals: Counter<'scope'>;
  private readonly fallbacks: Counter<'status'>;

  constructor(
    @Inject(MetricsService) metrics: MetricsService,
    @Inject(MessageMetrics) private readonly messages: MessageMetrics,
  ) {
    this.requests = metrics.counter({
      name: 'bulk_send_requests_total',
      help: 'Send requests stored and charged (replays of a user_reference_id not counted), by channel',
      labelNames: ['channel'] as const,
    });
    this.windowDeferrals = metrics.counter({
      name: 'bulk_window_deferred_messages_total',
      help: 'Accepted messages a send window deferred (SCHEDULED until it opens), by channel',
      labelNames: ['channel'] as const,
    });
    this.fallbacks = metrics.counter({
      name: 'bulk_fallbacks_created_total',
      help: 'Fallback SMS created for chat messages not delivered in time, by outcome (ACKNOWLEDGED, REJECTED)',
      labelNames: ['status'] as const,
    });
    this.testRequests = metrics.counter({
      name: 'bulk_test_requests_total',
      help: 'Send requests accepted from test keys, by channel (stored and answered, never handed to a provider nor charged)',
      labelNames: ['channel'] as const,
    });
    this.spendLimitRefusals = metrics.counter({
      name: 'bulk_spend_limit_refusals_total',
      help: "Send requests refused with SPEND_LIMIT_EXCEEDED, by scope of the limit: key, account or parent (a sub-account's parent's, covering its family)",
      labelNames: ['scope'] as const,
    });
  }

  /** A send request committed: its accepted (ACKNOWLEDGED) and refused-at-intake (REJECTED) messages. */
  sendCommitted(channel: string, accepted: number, rejected: number): void {
    this.requests.inc({ channel });
    this.messages.entered(channel, 'ACKNOWLEDGED', accepted);
    this.messages.entered(channel, 'REJECTED', rejected);
  }

  /** A send request from a test key was accepted. */
  testRequestAccepted(channel: string): void {
    this.testRequests.inc({ channel });
  }

  /** Accepted messages a send window made wait. */
  windowDeferred(channel: string, n: number): void {
    this.windowDeferrals.inc({ channel }, n);
  }

  /** A send request was refused by a daily spend limit. */
  spendLimitRefused(scope: string): void {
    this.spendLimitRefusals.inc({ scope });
  }

  /** Fallback SMS created, by the state they were created in. */
  fallbackCreated(status: string, n: number): void {
    this.fallbacks.inc({ status }, n);
  }
}
