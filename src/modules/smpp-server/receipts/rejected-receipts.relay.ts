import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { RepeatLimiter } from '../../../platform/logging/repeat-limiter.js';
import { SmppSend } from '../submit/smpp-send.service.js';
import { SmppReceiptWriter } from './smpp-receipt.writer.js';

/**
 * A submit the pipeline stored REJECTED (suppressed, no route, a spend limit…) owes its client a
 * REJECTD receipt: kept in the outbox before the submit's answer is sent, unless MySQL fails
 * just then (logged).
 */
@Injectable()
export class RejectedReceiptsRelay implements OnApplicationBootstrap {
  private readonly warnings = new RepeatLimiter(new Logger(RejectedReceiptsRelay.name));

  constructor(
    private readonly submits: SmppSend,
    private readonly writer: SmppReceiptWriter,
  ) {}

  onApplicationBootstrap(): void {
    this.submits.onRejectedAtAcceptance((r) => {
      void this.writer
        .storedRejected([r])
        .catch((err: Error) => this.warnings.warn(`REJECTD receipt not kept (${err.message})`, 'rejected'));
    });
  }
}
