import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { MessageStore } from '../../messages/message.store.js';
import { CHANNELS } from '../../messages/channel.js';
import { MessageStateService } from '../lifecycle/message-state.service.js';

/**
 * Transports whose providers send delivery reports. SMTP and the HTTP chat API answer at
 * hand-over and never report again: for them SENT is the provider's last word, not a wait.
 */
const REPORTING_TRANSPORTS = new Set(['smpp', 'sandbox']);
const BATCH = 500;
/** At most this many batches per round, so one round never holds the sweep for long. */
const BATCHES_PER_ROUND = 20;

/**
 * Closes out messages whose receipt never came: SENT for longer than RECEIPT_WAIT ends
 * EXPIRED, reason NO_RECEIPT, with its callback. Not refunded: the provider took the message
 * and may well have delivered it. A receipt arriving later is still stored with the other
 * delivery reports but no longer changes the message (a state never goes back).
 */
@Injectable()
export class ReceiptExpiry {
  private readonly logger = new Logger(ReceiptExpiry.name);

  constructor(
    private readonly store: MessageStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly states: MessageStateService,
  ) {}

  /** Returns how many messages were closed out. */
  async expire(): Promise<number> {
    const channels = CHANNELS.filter((c) => REPORTING_TRANSPORTS.has(this.config.transports[c]));
    if (channels.length === 0) return 0;
    let expired = 0;
    for (let round = 0; round < BATCHES_PER_ROUND; round++) {
      const rows = await this.store.findSentBefore(this.config.receiptWaitMs, channels, BATCH);
      if (rows.length === 0) break;
      const done = await this.states.apply(
        rows.map((r) => ({ id: String(r.id), status: 'EXPIRED' as const, reason: 'NO_RECEIPT' })),
      );
      expired += done.length;
      // Rows of a channel left out stay behind the cut-off: stop rather than read them again.
      if (rows.length < BATCH || done.length === 0) break;
    }
    if (expired)
      this.logger.log(
        `${expired} message(s) SENT more than ${Math.round(this.config.receiptWaitMs / 1000)} s ago without a receipt: EXPIRED, NO_RECEIPT`,
      );
    return expired;
  }
}
