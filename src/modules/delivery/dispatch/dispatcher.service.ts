import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Job } from 'bull';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { MetricsService } from '../../metrics/metrics.service.js';
import { MessageStore } from '../../messages/message.store.js';
import type { Channel } from '../../messages/channel.js';
import { MessageStateService, type Transition } from '../lifecycle/message-state.service.js';
import type { DispatchJob } from './dispatch.constants.js';
import { HandOverRecorder } from './hand-over.recorder.js';
import { ConfigurationDispatchError, TestDispatchError } from '../retry-policy.js';
import { DispatchAttempts } from './dispatch-attempts.service.js';
import { HandOverClaims } from './hand-over-claims.service.js';
import { HandOversInFlight } from '../receipts/hand-overs-in-flight.registry.js';
import { TransportRegistry } from './transport.registry.js';
import type { OutboundMessage, TransportResult } from '../transports/transport.js';
import { DeliverySuppressions } from '../../suppressions/delivery-suppressions.service.js';
import { SUPPRESSED } from '../../suppressions/suppression-check.service.js';

export class TransientDispatchError extends Error {}

/**
 * Hands one job's messages to the channel's transport. Error policy (as ghostfolio's
 * processors): a permanent refusal ends the message REJECTED (refunded) and is not retried;
 * a transient failure throws so Bull retries the job with backoff, and on the last attempt
 * the messages still waiting end FAILED (refunded). Messages no longer ACKNOWLEDGED are
 * skipped, so a retried or duplicated job never sends a message twice.
 */
@Injectable()
export class Dispatcher {
  private readonly logger = new Logger(Dispatcher.name);
  private readonly slice: number;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly store: MessageStore,
    private readonly transports: TransportRegistry,
    private readonly states: MessageStateService,
    private readonly recorder: HandOverRecorder,
    private readonly attempts: DispatchAttempts,
    private readonly claims: HandOverClaims,
    private readonly inFlight: HandOversInFlight,
    private readonly suppressions: DeliverySuppressions,
    @Inject(MetricsService) private readonly metrics: MetricsService,
  ) {
    this.slice = config.dispatchSlice;
  }

  async handle(channel: Channel, job: Job<DispatchJob>): Promise<{ sent: number; rejected: number }> {
    const { sendRequestId, messageIds } = job.data;
    const { request, waiting } = await this.store.findDispatchWork(sendRequestId, messageIds);
    if (!request) {
      this.logger.warn(`job ${job.id}: request ${sendRequestId} not found; discarded`);
      return { sent: 0, rejected: 0 };
    }
    const owner = { accountId: String(request.account_id), testMode: Boolean(request.test_mode) };
    let rows = waiting;
    if (rows.length === 0) return { sent: 0, rejected: 0 };
    // A recipient who opted out after acceptance (while the message waited for send_at or in the
    // queue) is not written to: REJECTED, SUPPRESSED, refunded. The STOP confirmation is exempt.
    const optedOut = request.suppression_exempt
      ? new Set<string>()
      : await this.suppressions.suppressedNow(
          owner,
          channel,
          rows.map((r) => r.recipient),
        );
    let refused = 0;
    if (optedOut.size) {
      const applied = await this.states.apply(
        rows
          .filter((r) => optedOut.has(r.recipient))
          .map((r) => ({ id: String(r.id), status: 'REJECTED' as const, reason: SUPPRESSED })),
      );
      refused = applied.length;
      if (refused) this.metrics.suppressedRefused(channel, refused);
      rows = rows.filter((r) => !optedOut.has(r.recipient));
      if (rows.length === 0) return { sent: 0, rejected: refused };
    }

    const outbound: OutboundMessage[] = rows.map((r) => ({
      id: String(r.id),
      uuid: r.uuid,
      channel,
      recipient: r.recipient,
      sender: request.sender,
      body: r.body ?? request.body,
      subject: r.subject ?? request.subject,
      replyTo: request.reply_to,
      apiReference: String(sendRequestId),
      accountId: String(request.account_id),
      priority: request.priority,
      headers: this.suppressions.headersFor(channel, r.uuid),
    }));
    // A test key's request never reaches the channel's provider, whatever path queued it.
    const transport = request.test_mode ? this.transports.test() : this.transports.get(channel);
    const sent: Array<{ id: string; providerMessageId: string; parts: string[] }> = [];
    const transient: Array<{ id: string; reason: string }> = [];
    let rejected = refused;
    let configurationFailure = false;
    // Hand over in small slices and record each slice at once: a worker killed mid-job then
    // leaves at most one slice whose fate is unknown (and sent again), not the whole job.
    for (let i = 0; i < outbound.length; i += this.slice) {
      // Claimed first: a message cancelled or expired meanwhile is not sent (HandOverClaims).
      const part = await this.claims.take(String(sendRequestId), outbound.slice(i, i + this.slice));
      if (part.length === 0) continue;
      // Receipts that overtake this slice's record of SENT wait for it (HandOversInFlight).
      const handOver = this.inFlight.begin();
      const changes: Transition[] = [];
      const partSent: typeof sent = [];
      let results: TransportResult[];
      try {
        results = await transport.send(part, (ids) => handOver.accepted(ids));
        await this.attempts.record(channel, transport.name, job, part, results);
        results.forEach((r, j) => {
          const id = part[j].id;
          if (r.kind === 'accepted') {
            changes.push({
              id,
              status: 'SENT',
              providerMessageId: r.providerMessageId,
              reason: r.reason ?? null,
              connector: r.connector,
              attempted: true,
            });
            partSent.push({
              id,
              providerMessageId: r.providerMessageId,
              parts: r.parts ?? [r.providerMessageId],
            });
          } else if (r.kind === 'permanent') {
            changes.push({ id, status: 'REJECTED', reason: r.reason.slice(0, 64) });
            rejected++;
          } else {
            transient.push({ id, reason: r.reason.slice(0, 64) });
            if (r.configuration) configurationFailure = true;
          }
        });
        await this.recorder.record(job.id, changes, partSent);
      } finally {
        handOver.end();
      }
      await this.suppressions.bounced(
        owner,
        part
          .filter((_, j) => results[j].kind === 'permanent' && results[j].mailboxRefused)
          .map((m) => m.recipient),
      );
      sent.push(...partSent);
    }
    await this.claims.release(transient.map((t) => t.id));
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    if (lastAttempt)
      await this.states.apply(
        transient.map((t) => ({ id: t.id, status: 'FAILED' as const, reason: t.reason })),
      );
    if (transient.length && !lastAttempt) {
      const message = `${transient.length} of ${rows.length} messages not handed over: ${transient[0].reason}`;
      if (request.test_mode) throw new TestDispatchError(message);
      throw configurationFailure
        ? new ConfigurationDispatchError(message)
        : new TransientDispatchError(message);
    }
    return { sent: sent.length, rejected };
  }
}
