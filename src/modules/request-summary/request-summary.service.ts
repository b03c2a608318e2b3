import { Injectable } from '@nestjs/common';
import { AppException } from '../../platform/errors/app.exception.js';
import { toNumber } from '../../platform/money/money.js';
import { LedgerStore } from '../balance/ledger.store.js';
import { MESSAGE_STATUSES, type MessageStatus } from '../messages/channel.js';
import { MessageSearchStore } from '../messages/message-search.store.js';

const notFound = () => new AppException('NOT_FOUND', 'No such request.');

/** "What happened to request X": its messages counted by state, and its money. */
@Injectable()
export class RequestSummaryService {
  constructor(
    private readonly store: MessageSearchStore,
    private readonly ledger: LedgerStore,
  ) {}

  async summary(accountId: string, apiReference: string, testMode = false) {
    if (!/^\d{1,20}$/.test(apiReference)) throw notFound();
    const found = await this.store.summary(accountId, apiReference, testMode);
    if (!found) throw notFound();
    const { request, counts } = found;
    const byState = Object.fromEntries(MESSAGE_STATUSES.map((s) => [s, 0])) as Record<MessageStatus, number>;
    let units = 0;
    for (const c of counts) {
      byState[c.status] = Number(c.n);
      units += Number(c.units);
    }
    return {
      api_reference: String(request.id),
      channel: request.channel,
      created_at: request.created_at.toISOString(),
      send_at: request.send_at ? request.send_at.toISOString() : null,
      counts: byState,
      units,
      cost: toNumber(request.cost),
      refunded: toNumber(await this.ledger.refundedForRequest(apiReference)),
      currency: request.currency,
    };
  }
}
