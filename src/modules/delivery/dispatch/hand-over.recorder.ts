import { Injectable, Logger } from '@nestjs/common';
import { MessagePartsStore } from '../../messages/message-parts.store.js';
import { DeliveryReportService } from '../receipts/delivery-report.service.js';
import { MessageStateService, type Transition } from '../lifecycle/message-state.service.js';
import { RECORD_BACKOFF_MAX_MS, RECORD_RETRY_MS } from '../retry-policy.js';
import { idKeys } from '../smpp/receipt-ids.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A message the provider took, with the provider's id of each of its parts. */
export interface HandedOver {
  id: string;
  parts: string[];
}

/**
 * The one place a hand-over is recorded: SENT (or the provider's REJECTED) and the provider ids
 * of the parts commit in one transaction, then the receipts that overtook them are applied.
 */
@Injectable()
export class HandOverRecorder {
  private readonly logger = new Logger('Dispatcher');

  constructor(
    private readonly states: MessageStateService,
    private readonly parts: MessagePartsStore,
    private readonly reports: DeliveryReportService,
  ) {}

  /**
   * What the provider took is recorded whatever it takes: a failed write (deadlock, lock wait
   * timeout, MySQL restarting) is retried here with backoff for up to RECORD_RETRY_MS, because
   * letting the job fail would make Bull's retry send those messages a second time.
   */
  async record(jobId: string | number, changes: Transition[], sent: HandedOver[]): Promise<void> {
    const deadline = Date.now() + RECORD_RETRY_MS;
    // A resend replaces a part's earlier id.
    const rows = sent.flatMap((s) =>
      s.parts.map((p, i) => ({
        messageId: s.id,
        part: i + 1,
        providerMessageId: p,
        idValue: p === '' ? null : idKeys(p).hex,
      })),
    );
    for (let attempt = 1; ; attempt++) {
      try {
        // A receipt that came first is stored unmatched and applied soon after, off this
        // slice's path. A retry repeats the write.
        await this.states.apply(changes, (em) => this.parts.storeParts(em, rows));
        this.reports.applyEarlySoon(sent.flatMap((s) => s.parts));
        if (attempt > 1)
          this.logger.log(`job ${jobId}: ${changes.length} hand-over(s) recorded after ${attempt} attempts`);
        return;
      } catch (err) {
        if (Date.now() >= deadline) throw err;
        if (attempt === 1)
          this.logger.warn(
            `job ${jobId}: recording ${changes.length} hand-over(s) failed, retrying: ${(err as Error).message}`,
          );
        await sleep(
          Math.min(RECORD_BACKOFF_MAX_MS, 100 * 2 ** Math.min(attempt, 6)) * (0.5 + Math.random() / 2),
        );
      }
    }
  }
}
