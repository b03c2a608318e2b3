import { RepeatLimiter } from '../../../platform/logging/repeat-limiter.js';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Job } from 'bull';
import { MessageStore } from '../../messages/message.store.js';
import type { Channel } from '../../messages/channel.js';
import { DeliveryMetrics } from '../delivery.metrics.js';
import type { DispatchJob } from './dispatch.constants.js';
import { ProviderFaults } from './provider-faults.registry.js';
import type { OutboundMessage, TransportResult } from '../transports/transport.js';

const SHOWN_IDS = 5;

function messagesNamed(ids: string[]): string {
  const shown = ids.slice(0, SHOWN_IDS).join(', ');
  return ids.length === 1
    ? `message ${shown}`
    : `${ids.length} messages (${shown}${ids.length > SHOWN_IDS ? ', …' : ''})`;
}

/**
 * Makes each failed hand-over attempt visible: the message rows count it and keep its reason
 * (the message lookup shows both), a metric counts failures by channel, transport, reason and
 * class, and each failing slice writes one log line naming the messages, the request, the
 * transport and the cause — warn for a failure that may pass, error at once for one that needs
 * the configuration changed (also reported to the health check through ProviderFaults).
 */
@Injectable()
export class DispatchAttempts {
  private readonly logger = new Logger('Dispatch');
  private readonly warnings = new RepeatLimiter(this.logger);

  constructor(
    private readonly store: MessageStore,
    private readonly faults: ProviderFaults,
    @Inject(DeliveryMetrics) private readonly metrics: DeliveryMetrics,
  ) {}

  async record(
    channel: Channel,
    transport: string,
    job: Job<DispatchJob>,
    part: OutboundMessage[],
    results: TransportResult[],
  ): Promise<void> {
    const failed = new Map<
      string,
      { ids: string[]; detail: string; configuration: boolean; kind: 'transient' | 'permanent' }
    >();
    const reasonOf: Array<[string, string]> = [];
    let accepted = 0;
    results.forEach((r, i) => {
      if (r.kind === 'accepted') {
        accepted++;
        return;
      }
      const reason = r.reason.slice(0, 64);
      reasonOf.push([part[i].id, reason]);
      const configuration = r.kind === 'transient' && r.configuration === true;
      const key = `${r.kind}:${reason}`;
      const group = failed.get(key) ?? { ids: [], detail: r.detail ?? '', configuration, kind: r.kind };
      group.ids.push(part[i].id);
      failed.set(key, group);
    });
    // An accepted message counts its attempt in the write that records it SENT (Dispatcher).
    await this.write(
      reasonOf.map(([id]) => id),
      reasonOf,
    );
    if (accepted > 0) this.faults.clear(channel);

    const attempt = job.attemptsMade + 1;
    const attempts = job.opts.attempts ?? 1;
    const where = `request ${job.data.sendRequestId}, job ${job.id}, attempt ${attempt} of ${attempts}`;
    for (const [key, g] of failed) {
      const reason = key.slice(key.indexOf(':') + 1);
      const cls = g.kind === 'permanent' ? 'permanent' : g.configuration ? 'configuration' : 'transient';
      this.metrics.transportFailures(channel, transport, reason, cls, g.ids.length);
      const cause = g.detail ? `${reason} (${g.detail})` : reason;
      if (g.kind === 'permanent') continue; // REJECTED with its reason: the state change says it all
      const last = attempt >= attempts;
      if (g.configuration) {
        this.faults.report(channel, { transport, reason, detail: g.detail });
        this.logger.error(
          `${channel} via ${transport}: ${messagesNamed(g.ids)} of ${where} not handed over: ${cause}. ` +
            (last
              ? 'Last attempt: they end FAILED and are refunded.'
              : 'Retrying cannot help until the configuration or the server changes; they stay ACKNOWLEDGED and are retried on a long backoff.'),
        );
      } else {
        this.logger.warn(
          `${channel} via ${transport}: ${messagesNamed(g.ids)} of ${where} not handed over: ${cause}; ${last ? 'they end FAILED and are refunded' : 'retrying'}`,
        );
      }
    }
  }

  /** Counting attempts is a record, not a step of delivery: a failed write costs a warning, not the slice. */
  private async write(ids: string[], reasons: Array<[string, string]>): Promise<void> {
    await this.store
      .recordAttempts(ids, reasons)
      .catch((err: Error) =>
        this.warnings.warn(`attempts of ${ids.length} message(s) not recorded: ${err.message}`),
      );
  }
}
