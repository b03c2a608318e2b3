import { Injectable } from '@nestjs/common';
import type { DataSide } from '../../api-keys/auth/auth-context.js';
import { AppException } from '../../../platform/errors/app.exception.js';
import { money, sum, toNumber } from '../../../platform/money/money.js';
import { MessageLookupStore } from '../../messages/message-lookup.store.js';
import { ScheduleStore, type Cancellable } from '../../messages/schedule.store.js';
import { MessageStateService } from '../lifecycle/message-state.service.js';

/** Messages per state-change transaction: short locks, so hand-overs in progress are not held up. */
const BATCH = 500;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface CancelAnswer {
  api_reference: string;
  cancelled: number;
  not_cancelled: number;
  refunded: number;
  currency: string;
}

const notFound = (what: string) => new AppException('NOT_FOUND', `No such ${what}.`);

/**
 * Cancels what has not reached a provider yet: SCHEDULED and ACKNOWLEDGED messages end
 * CANCELLED, refunded, with their callback. A message a worker is handing over at that moment
 * is not cancelled (HandOverClaims): it is sent, or cancelled, never both. Repeating a cancel
 * finds nothing left to cancel. `cancelled + not_cancelled` is the accepted (charged) messages
 * concerned; `refunded` is what this call gave back.
 */
@Injectable()
export class CancellationService {
  constructor(
    private readonly schedules: ScheduleStore,
    private readonly messages: MessageLookupStore,
    private readonly states: MessageStateService,
  ) {}

  /** `side`: the caller's account and key mode; the other side's requests and messages are 404, as another account's. */
  async cancelRequest(side: DataSide, apiReference: string): Promise<CancelAnswer> {
    if (!/^\d{1,20}$/.test(apiReference)) throw notFound('request');
    const request = await this.schedules.findOwnedRequest(side.accountId, apiReference, side.testMode);
    if (!request) throw notFound('request');
    // First the gate, so no worker starts on the messages while they are being cancelled.
    await this.schedules.requestCancel(apiReference, new Date());
    const { cancelled, refunded } = await this.cancel(await this.schedules.findWaitingOf(apiReference));
    return this.answer(apiReference, Number(request.accepted_count), cancelled, refunded, request.currency);
  }

  async cancelMessage(side: DataSide, messageId: string): Promise<CancelAnswer> {
    const by = UUID.test(messageId)
      ? { uuid: messageId.toLowerCase() }
      : /^\d{1,20}$/.test(messageId)
        ? { id: messageId }
        : null;
    const row = by ? await this.messages.findOwned(side.accountId, by, side.testMode) : undefined;
    if (!row) throw notFound('message');
    const waiting = row.status === 'SCHEDULED' || row.status === 'ACKNOWLEDGED';
    const { cancelled, refunded } = await this.cancel(
      waiting ? [{ id: String(row.id), cost: row.cost }] : [],
    );
    return this.answer(String(row.send_request_id), row.units > 0 ? 1 : 0, cancelled, refunded, row.currency);
  }

  private async cancel(candidates: Cancellable[]): Promise<{ cancelled: number; refunded: string }> {
    const cost = new Map(candidates.map((c) => [String(c.id), c.cost]));
    const refunds: string[] = [];
    for (let i = 0; i < candidates.length; i += BATCH) {
      const done = await this.states.apply(
        candidates.slice(i, i + BATCH).map((c) => ({
          id: String(c.id),
          status: 'CANCELLED' as const,
          unlessHandingOver: true,
        })),
      );
      for (const t of done) refunds.push(cost.get(t.id) ?? '0');
    }
    return { cancelled: refunds.length, refunded: money(sum(refunds)) };
  }

  private answer(
    apiReference: string,
    accepted: number,
    cancelled: number,
    refunded: string,
    currency: string,
  ): CancelAnswer {
    return {
      api_reference: apiReference,
      cancelled,
      not_cancelled: Math.max(0, accepted - cancelled),
      refunded: toNumber(refunded),
      currency,
    };
  }
}
