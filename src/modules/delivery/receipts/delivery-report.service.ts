import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { retryOn } from '../../../database/conflict-retry.js';
import { MicroBatcher } from '../../../platform/batching/micro-batcher.js';
import { RepeatLimiter } from '../../../platform/logging/repeat-limiter.js';
import { PeriodicTask } from '../../../platform/periodic/periodic-task.js';
import { MessageStateService } from '../lifecycle/message-state.service.js';
import { DeliveryMetrics } from '../delivery.metrics.js';
import { MessagePartsStore } from '../../messages/message-parts.store.js';
import { HandOversInFlight } from './hand-overs-in-flight.registry.js';
import { DeliveryReportStore, type AppliedReport, type ArrivedReport } from './delivery-report.store.js';
import { compareIds, ReceiptMatcher, receiptKey } from './receipt-matcher.js';
import {
  isLockConflict,
  RECORD_BACKOFF_MAX_MS,
  RECORD_RETRY_MS,
  REPORT_LOCK_TRIES,
} from '../retry-policy.js';
import { ReceiptLanes } from './receipt-lanes.js';
import { idKeys } from '../smpp/receipt-ids.js';
import type { DeliveryReport } from '../transports/transport.js';
import { withFields } from '../../../platform/objects/with-fields.js';

/**
 * Receipts applied together: while a worker hands over thousands of messages a second each batch's
 * few round trips are slow (the event loop and MySQL are busy), so a large batch is what lets
 * receipts keep pace with submits.
 */
const MAX_BATCH = 2_000;
/**
 * Batches applied at once. One at a time, a batch's round trips waited on an event loop shared
 * with sixteen jobs' hand-overs, and receipts fell behind while submits ran (their lag grew to
 * 1.7 s in a 10,000-message burst, each batch hitting MAX_BATCH). With a second batch under way
 * they keep pace. A provider id's receipts all go to one lane (ReceiptLanes), so a resend is
 * applied after the receipt it repeats: only end states are recorded and the first one of a part
 * counts, so a resend changes nothing, even one that names another end state.
 */
const CONCURRENT_BATCHES = 2;
/** Slices recorded in the same tick whose early reports are applied together (each up to DISPATCH_SLICE messages). */
const EARLY_BATCH_SLICES = 5;
const UNMATCHED_LOG_EVERY_MS = 10_000;
/** Reports younger than this are left to the early pass after SENT. */
const STRANDED_MIN_AGE_MS = 5_000;
const EXPIRE_EVERY_MS = 60_000;

/**
 * Records every delivery report in the notification database and applies it to its message part.
 * Reports arriving together (an SMSC sends thousands a second) are handled as one batch. `receive`
 * resolves only once the report is applied where its message is known and its row is committed
 * (marked applied, or not), and rejects otherwise, so the transport can ask the provider to
 * deliver it again. A report for a message this process is handing over waits, briefly, for that
 * hand-over to be recorded (an SMSC often sends the receipt before we have written SENT). A report
 * that still matches no message part is kept unapplied and applied when the part is recorded (by
 * another worker, say); one that matches nothing after SMPP_UNMATCHED_RECEIPT_TTL_MS is marked
 * expired.
 */
@Injectable()
export class DeliveryReportService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(DeliveryReportService.name);
  private readonly matcher: ReceiptMatcher;
  private readonly warnings = new RepeatLimiter(this.logger);
  private readonly batches = new ReceiptLanes<ArrivedReport>({
    lanes: CONCURRENT_BATCHES,
    maxBatch: MAX_BATCH,
    flush: (batch) => this.store(batch),
  });
  /**
   * Provider ids of parts just recorded, whose early reports are applied off the dispatcher's
   * path: the slices of all jobs recorded meanwhile share one lookup and one state change.
   */
  private readonly early = new MicroBatcher<string[]>({
    maxBatch: EARLY_BATCH_SLICES,
    // A batch does not wait for the one before: receipts keep pace with several jobs recording SENT.
    overlap: true,
    flush: (lists) => this.applyEarly(lists.flat()),
  });
  private unmatched = { count: 0, example: '', loggedAt: 0 };
  private readonly expiry = new PeriodicTask({
    run: async () => {
      await this.applyStranded().catch(() => undefined);
      await this.expireUnmatched();
    },
    everyMs: EXPIRE_EVERY_MS,
    logger: this.logger,
    warnings: this.warnings,
    failure: 'unmatched receipts not expired',
  });

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    parts: MessagePartsStore,
    private readonly reports: DeliveryReportStore,
    private readonly states: MessageStateService,
    private readonly inFlight: HandOversInFlight,
    @Inject(DeliveryMetrics) private readonly metrics: DeliveryMetrics,
  ) {
    this.matcher = new ReceiptMatcher(parts, config.smppReceiptIdFormat);
  }

  onApplicationBootstrap(): void {
    this.expiry.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.expiry.stop();
  }

  /** Resolves once the report is stored (and applied, when its message is known). */
  async receive(transport: string, report: DeliveryReport): Promise<void> {
    if (this.inFlight.busy) {
      // A submit_sm_resp read in the same chunk as this receipt is noted first (HandOversInFlight).
      await new Promise((r) => setImmediate(r));
      await this.inFlight.recorded(report.providerMessageId);
    }
    return this.batches.push(report.providerMessageId, { transport, report });
  }

  /** Throws when the batch is not stored, so every report in it is refused and the provider resends it. */
  private async store(batch: ArrivedReport[]): Promise<void> {
    let unmatched: string[];
    try {
      unmatched = await retryLocks(() => this.handle(batch));
    } catch (err) {
      this.warnings.warn(
        `${batch.length} delivery report(s) not stored, left to the provider to resend: ${(err as Error).message}`,
      );
      throw err;
    }
    if (unmatched.length === 0) return;
    // A part recorded between the match and the INSERT looked for stored early reports before
    // these were stored: look again, now that they are. The batch is stored whatever happens here
    // (so it is neither refused nor stored twice); what this misses, the stranded sweep applies.
    try {
      const still = await retryLocks(() => this.applyPending(unmatched));
      if (still.length) this.noteUnmatched(batch[0].transport, still);
    } catch (err) {
      this.warnings.warn(
        `${unmatched.length} stored delivery report(s) left to the stranded sweep: ${(err as Error).message}`,
      );
    }
  }

  /**
   * Applied first, then stored in one INSERT that marks each applied row so: a failure anywhere
   * refuses the whole batch, and the provider's resend is applied again without effect (the first
   * report of a part counts, and a state never goes back). Returns the provider ids that matched
   * nothing.
   */
  private async handle(batch: ArrivedReport[]): Promise<string[]> {
    const { applied, unmatched } = await this.apply(batch.map((q) => q.report));
    await this.reports.insert(batch, applied);
    return unmatched;
  }

  /**
   * Applies reports to the parts they match, each within the connector it arrived on (see
   * ReceiptMatcher.match); returns what each applied receipt matched, by receiptKey, and the
   * provider ids that matched nothing.
   */
  private async apply(
    reports: Array<Pick<DeliveryReport, 'providerMessageId' | 'status' | 'reason' | 'connector'>>,
  ): Promise<{ applied: Map<string, AppliedReport>; unmatched: string[] }> {
    const applied = new Map<string, AppliedReport>();
    const found = await this.matcher.match(reports);
    const matched = reports.filter((r) => found.has(receiptKey(r)));
    if (matched.length) {
      const now = new Date();
      const { outcomes, alongside } = await this.matcher.recordParts(
        matched.map((r) => ({
          part: found.get(receiptKey(r))!,
          report: withFields(r, { occurredAt: now }),
        })),
      );
      // The state change is stamped when we learn of it: providers' own times are often
      // minute-precision (SMPP done date) and would put DELIVERED before SENT in the history.
      // The provider's time stays in delivery_reports.occurred_at.
      await this.states.apply(
        outcomes.sort((a, b) => compareIds(a.id, b.id)),
        alongside,
      );
      // Keyed by receipt: one repeated in the batch is one entry.
      for (const r of matched)
        applied.set(receiptKey(r), {
          providerMessageId: r.providerMessageId,
          connector: r.connector || null,
          messageId: found.get(receiptKey(r))!.message_id,
        });
    }
    return {
      applied,
      unmatched: reports.filter((r) => !found.has(receiptKey(r))).map((r) => r.providerMessageId),
    };
  }

  /**
   * Applies, soon and together with other slices', the reports that arrived for these provider ids
   * before their parts were recorded (an SMSC often sends the receipt before we have written SENT).
   * They are stored already, so the provider has been answered; until applied, their messages
   * read SENT. A failed try is repeated with backoff for up to RECORD_RETRY_MS.
   */
  applyEarlySoon(providerIds: string[]): void {
    const ids = providerIds.filter((p) => p !== '');
    if (ids.length) this.early.add(ids);
  }

  /** Resolves once the early reports of every part recorded so far are applied (or given up on). */
  drainEarly(): Promise<void> {
    return this.early.drain();
  }

  private async applyEarly(providerIds: string[]): Promise<void> {
    const deadline = Date.now() + RECORD_RETRY_MS;
    for (let attempt = 1; ; attempt++) {
      try {
        await retryLocks(() => this.applyPending(providerIds));
        return;
      } catch (err) {
        if (Date.now() >= deadline) {
          this.warnings.warn(
            `reports that came before ${providerIds.length} part(s) were recorded not applied: ${(err as Error).message}`,
          );
          return;
        }
        await new Promise((r) =>
          setTimeout(
            r,
            Math.min(RECORD_BACKOFF_MAX_MS, 100 * 2 ** Math.min(attempt, 6)) * (0.5 + Math.random() / 2),
          ),
        );
      }
    }
  }

  /**
   * Applies the reports that arrived for these provider ids before their parts were recorded;
   * returns the provider ids of those that still match nothing.
   */
  async applyPending(providerIds: string[]): Promise<string[]> {
    if (providerIds.length === 0) return [];
    const format = this.config.smppReceiptIdFormat;
    const values = [...new Set(providerIds.map((p) => idKeys(p).hex).filter((v): v is string => v !== null))];
    // The lookups by key the format does not allow are left out (an empty list).
    const byHex = format === 'auto' || format === 'hex' ? values : [];
    const byDec = format === 'auto' || format === 'decimal' ? values : [];
    const pending = await this.reports.pending(providerIds, byHex, byDec);
    if (pending.length === 0) return [];
    const { applied, unmatched } = await this.apply(
      pending.map((p) => ({
        providerMessageId: p.provider_message_id,
        connector: p.connector,
        status: p.status,
        reason: p.reason,
      })),
    );
    await this.reports.markApplied([...applied.values()]);
    return unmatched;
  }

  /** Counted each time; logged at most once per UNMATCHED_LOG_EVERY_MS with the count since the last line. */
  private noteUnmatched(transport: string, ids: string[]): void {
    this.metrics.receiptsUnmatched(transport, ids.length);
    this.unmatched.count += ids.length;
    this.unmatched.example ||= ids[0];
    const now = Date.now();
    if (now - this.unmatched.loggedAt < UNMATCHED_LOG_EVERY_MS) return;
    this.logger.warn(
      `${this.unmatched.count} delivery report(s) matched no message yet (e.g. provider id ${this.unmatched.example}); kept ${Math.round(
        this.config.smppUnmatchedReceiptTtlMs / 1000,
      )} s for late matching`,
    );
    this.unmatched = { count: 0, example: '', loggedAt: now };
  }

  /**
   * Applies stored reports whose parts were recorded after them but that the early pass never
   * applied: a worker stopped between recording SENT and applying them, or the pass gave up. The
   * newest first, so that a backlog of stray receipts cannot hide the ones that now match.
   */
  async applyStranded(): Promise<void> {
    const ids = await this.reports.stranded(STRANDED_MIN_AGE_MS, MAX_BATCH);
    if (ids.length) await retryLocks(() => this.applyPending(ids));
  }

  /** Gives up on reports that matched nothing within SMPP_UNMATCHED_RECEIPT_TTL_MS; returns how many. */
  async expireUnmatched(): Promise<number> {
    const n = await this.reports.expireUnapplied(this.config.smppUnmatchedReceiptTtlMs);
    if (n > 0)
      this.logger.warn(
        `${n} delivery report(s) expired unmatched after ${Math.round(this.config.smppUnmatchedReceiptTtlMs / 1000)} s`,
      );
    return n;
  }
}

/** Deadlocks and lock wait timeouts between concurrent batches are routine: the batch is tried again. */
export function retryLocks<T>(fn: () => Promise<T>, retries = REPORT_LOCK_TRIES): Promise<T> {
  return retryOn(fn, { when: isLockConflict, tries: retries, pauseMs: 10 });
}
