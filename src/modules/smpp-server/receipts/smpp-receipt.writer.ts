import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { RepeatLimiter } from '../../../platform/logging/repeat-limiter.js';
import { REDIS } from '../../../platform/redis/redis.module.js';
import type { CommittedChange, StateChangeListener } from '../../delivery/lifecycle/state-change.listener.js';
import { MessageLookupStore } from '../../messages/message-lookup.store.js';
import type { LockedMessage } from '../../messages/message.store.js';
import { outboxWakeChannel } from './outbox-wake.js';
import { receiptPdu, wantsReceipt } from './receipt-pdu.js';
import { SmppReceiptMetrics } from './smpp-receipt.metrics.js';
import { SmppReceiptStore, type NewOutboxRow } from './smpp-receipt.store.js';

/** The receipt quotes this many characters of the message. */
const QUOTED = 20;

/**
 * Delivery's state changes that owe an SMPP receipt (a message submitted over SMPP whose
 * registered_delivery asks for this state) go to the outbox, in one INSERT per batch, and the
 * API processes are woken to send them. It runs where states change (a worker, or an API process
 * cancelling), which holds no binds. Its recovery round drops what waited past SMPP_DLR_TTL_HOURS.
 */
@Injectable()
export class SmppReceiptWriter implements StateChangeListener {
  private readonly warnings = new RepeatLimiter(new Logger(SmppReceiptWriter.name));

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly store: SmppReceiptStore,
    private readonly messages: MessageLookupStore,
    private readonly metrics: SmppReceiptMetrics,
  ) {}

  async committed(changes: CommittedChange[]): Promise<void> {
    const owed = changes.filter(
      (c) => c.message.smppCredentialId != null && wantsReceipt(c.message.smppRegisteredDelivery, c.status),
    );
    if (owed.length === 0) return;
    const ids = owed.map((c) => String(c.message.id));
    const quoted = await this.messages.sendersAndTextStarts(ids, QUOTED);
    const rows: NewOutboxRow[] = owed.map((c) => {
      const id = String(c.message.id);
      const m = quoted.get(id);
      return {
        credentialId: Number(c.message.smppCredentialId),
        messageId: id,
        pdu: receiptPdu({
          messageId: id,
          status: c.status,
          recipient: c.message.recipient,
          sender: m?.sender ?? '',
          submittedAt: new Date(c.message.created_at),
          doneAt: c.at,
          text: m?.text ?? '',
        }),
      };
    });
    await this.store.add(rows);
    await this.wake([...new Set(rows.map((r) => r.credentialId))]);
  }

  /**
   * Messages of a submit_sm that the pipeline stored REJECTED (suppressed, no route, a spend
   * limit…): no state change follows, so the submit path hands them here, and each owes its
   * REJECTD receipt as any final state does.
   */
  async storedRejected(
    messages: Array<{
      messageId: string;
      credentialId: number;
      registeredDelivery: number;
      reason: string | null;
    }>,
  ): Promise<void> {
    const found = await this.messages.sendersAndTextStarts(
      messages.map((m) => m.messageId),
      0,
    );
    await this.committed(
      messages.flatMap((m) => {
        const row = found.get(m.messageId);
        if (!row) return [];
        const message = {
          id: m.messageId,
          recipient: row.recipient,
          created_at: row.createdAt,
          smppCredentialId: m.credentialId,
          smppRegisteredDelivery: m.registeredDelivery,
        } as LockedMessage;
        return [{ message, status: 'REJECTED' as const, reason: m.reason, at: row.createdAt }];
      }),
    );
  }

  /** Tells the API processes which credentials have rows now; a miss waits for their next look. */
  async wake(credentialIds: number[]): Promise<void> {
    await this.redis
      .publish(outboxWakeChannel(this.config), JSON.stringify(credentialIds))
      .catch((err: Error) => this.warnings.warn(`SMPP outbox wake-up not published (${err.message})`));
  }

  async recover(): Promise<number> {
    const expired = await this.store.expire(this.config.smppDlrTtlHours);
    if (expired) {
      this.metrics.expired(expired);
      this.warnings.warn(
        `${expired} SMPP receipt(s) or inbound SMS dropped unsent after ${this.config.smppDlrTtlHours} h`,
        'expired',
      );
    }
    return 0;
  }
}
