import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../api-keys/auth/auth-context.js';
import { AppException } from '../../platform/errors/app.exception.js';
import { IdempotencyStore } from '../idempotency/idempotency.store.js';
import type { Channel } from '../messages/channel.js';
import { MessageStore } from '../messages/message.store.js';
import { statusAtSend, type ReplayRequest } from '../messages/message.types.js';
import { isTestKey } from './send-mode.js';
import type { SendOutcome } from './send.types.js';

/**
 * The answer to a send made already: the first answer, rebuilt from the stored request, for a
 * repeat under the same user_reference_id or Idempotency-Key.
 */
@Injectable()
export class SendReplay {
  constructor(
    private readonly store: MessageStore,
    private readonly idempotency: IdempotencyStore,
  ) {}

  /** The same body gets the first answer again; a different one is a conflict. */
  async ofReference(
    auth: AuthContext,
    channel: Channel,
    userReferenceId: string,
    requestHash: Buffer,
  ): Promise<SendOutcome> {
    const req = await this.store.findReplay(auth.account.id, channel, userReferenceId, isTestKey(auth));
    if (!req) throw new Error('duplicate reference reported but no request found');
    if (!req.request_hash.equals(requestHash)) {
      throw new AppException(
        'DUPLICATE_REFERENCE',
        `user_reference_id ${JSON.stringify(userReferenceId)} was already used for a different ${channel} request (api_reference ${req.id}).`,
        [{ field: 'user_reference_id', message: 'already used with a different body' }],
      );
    }
    return this.answerAgain(req, channel);
  }

  /** The send an earlier attempt under this Idempotency-Key made, whose answer was never kept. */
  async ofIdempotencyKey(claimId: string, channel: Channel): Promise<SendOutcome> {
    const made = await this.idempotency.linkedSend(claimId);
    const req = made ? await this.store.findReplayById(made) : undefined;
    if (!req) throw new Error('send tied to the Idempotency-Key not found');
    return this.answerAgain(req, channel);
  }

  /** The first answer of a stored request, rebuilt from its rows. */
  private async answerAgain(req: ReplayRequest, channel: Channel): Promise<SendOutcome> {
    const messages = await this.store.acceptedAnswer(String(req.id));
    return {
      apiReference: req.id,
      channel,
      // The first answer said ACKNOWLEDGED (SCHEDULED) for every charged message and REJECTED for the rest.
      entries: messages.map((m) => ({
        messageId: m.id,
        uuid: m.uuid,
        recipient: m.recipient,
        status: statusAtSend(m, req.send_at),
        reason: m.units > 0 ? undefined : (m.reason ?? undefined),
        sendAt: m.units > 0 ? (m.send_at ?? undefined) : undefined,
      })),
      acceptedCount: req.accepted_count,
      unitsPerRecipient: req.units_per_recipient,
      cost: req.cost,
      currency: req.currency,
      createdAt: req.created_at,
      replayed: true,
      sendAt: req.send_at?.toISOString() ?? null,
      priority: req.priority,
      replaced: null,
    };
  }
}
