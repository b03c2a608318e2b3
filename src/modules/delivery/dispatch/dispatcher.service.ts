import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Job } from 'bull';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { SuppressionMetrics } from '../../suppressions/suppressions.metrics.js';
import { MessageStore } from '../../messages/message.store.js';
import type { Channel } from '../../messages/channel.js';
import { MessageStateService, type Transition } from '../lifecycle/message-state.service.js';
import type { DispatchJob } from './dispatch.constants.js';
import { HandOverRecorder, type HandedOver } from './hand-over.recorder.js';
import { ConfigurationDispatchError, TestDispatchError } from '../retry-policy.js';
import { DispatchAttempts } from './dispatch-attempts.service.js';
import { HandOverClaims } from './hand-over-claims.service.js';
import { HandOversInFlight } from '../receipts/hand-overs-in-flight.registry.js';
import { TransportRegistry } from './transport.registry.js';
import type { OutboundMessage, Transport, TransportResult } from '../transports/transport.js';
import { DeliverySuppressions } from '../../suppressions/delivery-suppressions.service.js';
import type { ListOwner } from '../../suppressions/suppression.store.js';
import { SUPPRESSED } from '../../suppressions/suppression-check.service.js';
import type { DispatchRequest, WaitingMessage } from '../../messages/message.types.js';

export class TransientDispatchError extends Error {}

/** What a job's hand-overs came to, over its slices. */
interface Outcome {
  sent: number;
  rejected: number;
  transient: Array<{ id: string; reason: string }>;
  configurationFailure: boolean;
}

/** Whose suppression list applies to a request's messages. */
function ownerOf(request: DispatchRequest): ListOwner {
  return { accountId: String(request.account_id), testMode: Boolean(request.test_mode) };
}

const ownerKey = (request: DispatchRequest) => `${request.account_id}:${request.test_mode ? 1 : 0}`;

/**
 * Hands one job's messages (of one request, or of the single-message requests of a shared job)
 * to the channel's transport. Error policy (as ghostfolio's
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
    @Inject(SuppressionMetrics) private readonly suppressionMetrics: SuppressionMetrics,
  ) {
    this.slice = config.dispatchSlice;
  }

  async handle(channel: Channel, job: Job<DispatchJob>): Promise<{ sent: number; rejected: number }> {
    const { sendRequestId, messageIds } = job.data;
    const { requests, waiting } = await this.store.findDispatchWork(
      job.data.requestIds ?? [sendRequestId],
      messageIds,
    );
    if (requests.size === 0) {
      this.logger.warn(`job ${job.id}: request ${sendRequestId} not found; discarded`);
      return { sent: 0, rejected: 0 };
    }
    let rows = waiting.filter((r) => requests.has(r.send_request_id));
    if (rows.length === 0) return { sent: 0, rejected: 0 };
    // A recipient who opted out after acceptance (while the message waited for send_at or in the
    // queue) is not written to: REJECTED, SUPPRESSED, refunded. The STOP confirmation is exempt.
    const optedOut = await this.optedOut(channel, requests, rows);
    let refused = 0;
    if (optedOut.size) {
      const applied = await this.states.apply(
        rows
          .filter((r) => optedOut.has(r.id))
          .map((r) => ({ id: String(r.id), status: 'REJECTED' as const, reason: SUPPRESSED })),
      );
      refused = applied.length;
      if (refused) this.suppressionMetrics.refused(channel, refused);
      rows = rows.filter((r) => !optedOut.has(r.id));
      if (rows.length === 0) return { sent: 0, rejected: refused };
    }

    const live: OutboundMessage[] = [];
    const test: OutboundMessage[] = [];
    for (const r of rows) {
      const request = requests.get(r.send_request_id)!;
      // A test key's request never reaches the channel's provider, whatever path queued it.
      (request.test_mode ? test : live).push({
        id: String(r.id),
        uuid: r.uuid,
        channel,
        recipient: r.recipient,
        sender: request.sender,
        body: r.body ?? request.body,
        subject: r.subject ?? request.subject,
        replyTo: request.reply_to,
        apiReference: r.send_request_id,
        accountId: String(request.account_id),
        priority: request.priority,
        headers: this.suppressions.headersFor(channel, r.uuid),
      });
    }
    const outcome: Outcome = { sent: 0, rejected: refused, transient: [], configurationFailure: false };
    if (live.length) await this.handOver(channel, job, this.transports.get(channel), live, requests, outcome);
    if (test.length) await this.handOver(channel, job, this.transports.test(), test, requests, outcome);
    const { transient } = outcome;
    await this.claims.release(transient.map((t) => t.id));
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    if (lastAttempt)
      await this.states.apply(
        transient.map((t) => ({ id: t.id, status: 'FAILED' as const, reason: t.reason })),
      );
    if (transient.length && !lastAttempt) {
      const message = `${transient.length} of ${rows.length} messages not handed over: ${transient[0].reason}`;
      if (test.length && !live.length) throw new TestDispatchError(message);
      throw outcome.configurationFailure
        ? new ConfigurationDispatchError(message)
        : new TransientDispatchError(message);
    }
    return { sent: outcome.sent, rejected: outcome.rejected };
  }

  /** The ids of the messages whose recipient opted out since acceptance: one look-up per list owner. */
  private async optedOut(
    channel: Channel,
    requests: Map<string, DispatchRequest>,
    rows: WaitingMessage[],
  ): Promise<Set<string>> {
    const byOwner = new Map<string, WaitingMessage[]>();
    for (const r of rows) {
      const request = requests.get(r.send_request_id)!;
      if (request.suppression_exempt) continue;
      const key = ownerKey(request);
      byOwner.set(key, [...(byOwner.get(key) ?? []), r]);
    }
    const out = new Set<string>();
    for (const list of byOwner.values()) {
      const owner = ownerOf(requests.get(list[0].send_request_id)!);
      const suppressed = await this.suppressions.suppressedNow(
        owner,
        channel,
        list.map((r) => r.recipient),
      );
      for (const r of list) if (suppressed.has(r.recipient)) out.add(r.id);
    }
    return out;
  }

  /**
   * Hands the messages over in small slices and records each slice at once: a worker killed
   * mid-job then leaves at most one slice whose fate is unknown (and sent again), not the whole job.
   */
  private async handOver(
    channel: Channel,
    job: Job<DispatchJob>,
    transport: Transport,
    outbound: OutboundMessage[],
    requests: Map<string, DispatchRequest>,
    outcome: Outcome,
  ): Promise<void> {
    for (let i = 0; i < outbound.length; i += this.slice) {
      // Claimed first: a message cancelled or expired meanwhile is not sent (HandOverClaims).
      const part = await this.claims.take(outbound.slice(i, i + this.slice));
      if (part.length === 0) continue;
      // Receipts that overtake this slice's record of SENT wait for it (HandOversInFlight).
      const handOver = this.inFlight.begin();
      const changes: Transition[] = [];
      const partSent: HandedOver[] = [];
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
            partSent.push({ id, parts: r.parts ?? [r.providerMessageId] });
          } else if (r.kind === 'permanent') {
            changes.push({ id, status: 'REJECTED', reason: r.reason.slice(0, 64) });
            outcome.rejected++;
          } else {
            outcome.transient.push({ id, reason: r.reason.slice(0, 64) });
            if (r.configuration) outcome.configurationFailure = true;
          }
        });
        await this.recorder.record(job.id, changes, partSent);
      } finally {
        handOver.end();
      }
      const bounced = part.filter((_, j) => results[j].kind === 'permanent' && results[j].mailboxRefused);
      for (const m of bounced)
        await this.suppressions.bounced(ownerOf(requests.get(m.apiReference!)!), [m.recipient]);
      outcome.sent += partSent.length;
    }
  }
}
