import { Injectable } from '@nestjs/common';
import { ScheduleStore } from '../../messages/schedule.store.js';
import { MessageStateService } from '../lifecycle/message-state.service.js';
import type { OutboundMessage } from '../transports/transport.js';
import { VALIDITY_PERIOD_ELAPSED } from '../lifecycle/claim-lease.js';
import { withFields } from '../../../platform/objects/with-fields.js';

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

  /** The messages of the slice this worker may hand over now, each with its validity deadline. */
  async take(sendRequestId: string, part: OutboundMessage[]): Promise<OutboundMessage[]> {
    if (part.length === 0) return [];
    const now = new Date();
    const { gate, claimed } = await this.store.claim(
      sendRequestId,
      part.map((m) => m.id),
      now,
    );
    // The request is being cancelled: its messages are left to the cancel (or, should that not
    // finish, to ValidityExpiry's round), never started here.
    if (!gate || gate.cancel_requested_at) return [];
    const validUntil = gate.valid_until;
    if (validUntil && validUntil.getTime() <= now.getTime()) {
      await this.states.apply(
        part.map((m) => ({
          id: m.id,
          status: 'EXPIRED' as const,
          reason: VALIDITY_PERIOD_ELAPSED,
          refund: true,
          unlessHandingOver: true,
        })),
      );
      return [];
    }
    const taken = new Set(claimed);
    return part.filter((m) => taken.has(m.id)).map((m) => withFields(m, { validUntil }));
  }

  /** Messages left waiting after a hand-over attempt (to be retried) may be cancelled again meanwhile. */
  release(ids: string[]): Promise<void> {
    return this.store.unclaim(ids);
  }
}
