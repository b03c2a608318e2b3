import { Injectable } from '@nestjs/common';
import { ScheduleStore } from '../../messages/schedule.store.js';
import { MessageStateService } from '../lifecycle/message-state.service.js';
import type { OutboundMessage } from '../transports/transport.js';
import { VALIDITY_PERIOD_ELAPSED } from '../lifecycle/claim-lease.js';
import { withFields } from '../../../platform/objects/with-fields.js';

/** The dispatcher names each message's request. */
const requestOf = (m: OutboundMessage): string => m.apiReference ?? '';

/**
 * The dispatcher's side of "sent or cancelled, never both": before a slice goes to a transport,
 * its messages are claimed under a row lock. A message cancelled (or expired) first is not
 * claimed and not sent; one claimed first is not cancelled. Messages whose validity has
 * elapsed are not handed over at all: they end EXPIRED, VALIDITY_PERIOD_ELAPSED, refunded,
 * which wins over a FAILED that further retries would have reached. Nothing of a request whose
 * cancel was asked is started.
 */
@Injectable()
export class HandOverClaims {
  constructor(
    private readonly store: ScheduleStore,
    private readonly states: MessageStateService,
  ) {}

  /**
   * The messages of the slice this worker may hand over now, each with its validity deadline.
   * A slice of a shared job spans several requests (a message's apiReference): each by its gate.
   */
  async take(part: OutboundMessage[]): Promise<OutboundMessage[]> {
    if (part.length === 0) return [];
    const now = new Date();
    const { gates, claimed } = await this.store.claim(
      [...new Set(part.map(requestOf))],
      part.map((m) => m.id),
      now,
    );
    const taken = new Set(claimed);
    const lapsed: OutboundMessage[] = [];
    const out: OutboundMessage[] = [];
    for (const m of part) {
      const gate = gates.get(requestOf(m));
      // The request is being cancelled: its messages are left to the cancel (or, should that not
      // finish, to ValidityExpiry's round), never started here.
      if (!gate || gate.cancel_requested_at) continue;
      const validUntil = gate.valid_until;
      if (validUntil && validUntil.getTime() <= now.getTime()) lapsed.push(m);
      else if (taken.has(m.id)) out.push(withFields(m, { validUntil }));
    }
    if (lapsed.length)
      await this.states.apply(
        lapsed.map((m) => ({
          id: m.id,
          status: 'EXPIRED' as const,
          reason: VALIDITY_PERIOD_ELAPSED,
          refund: true,
          unlessHandingOver: true,
        })),
      );
    return out;
  }

  /** Messages left waiting after a hand-over attempt (to be retried) may be cancelled again meanwhile. */
  release(ids: string[]): Promise<void> {
    return this.store.unclaim(ids);
  }
}
