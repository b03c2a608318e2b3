import { Injectable } from '@nestjs/common';
import type { CommittedChange, StateChangeListener } from '../delivery/lifecycle/state-change.listener.js';
import { MessageStore } from '../messages/message.store.js';
import { VerificationStore } from './verification.store.js';
import { VERIFY_REFERENCE_PREFIX } from './verify-reference.js';

/** The recovery round masks what a lost listener call left, once it is this old. */
const RECOVER_AFTER_MS = 60_000;
const RECOVER_PER_ROUND = 200;

/**
 * Writes a verification message's code as ****** in its stored text as soon as the message
 * has left ACKNOWLEDGED (handed over, or ended without it): from then on the code is only with
 * the recipient. Told of every committed state change by delivery's fan-out; only a change of
 * a verification's message (its user_reference_id says so) costs a query.
 */
@Injectable()
export class VerificationMaskListener implements StateChangeListener {
  constructor(
    private readonly verifications: VerificationStore,
    private readonly messages: MessageStore,
  ) {}

  async committed(changes: CommittedChange[]): Promise<void> {
    const ids = changes
      .filter(
        (c) =>
          c.message.user_reference_id?.startsWith(VERIFY_REFERENCE_PREFIX) &&
          c.status !== 'ACKNOWLEDGED' &&
          c.status !== 'SCHEDULED',
      )
      .map((c) => c.message.id);
    await this.mask(ids);
  }

  async recover(): Promise<number> {
    const ids = await this.verifications.unmaskedBefore(
      new Date(Date.now() - RECOVER_AFTER_MS),
      RECOVER_PER_ROUND,
    );
    return this.mask(ids);
  }

  private async mask(messageIds: string[]): Promise<number> {
    const rows = await this.verifications.unmasked(messageIds);
    if (rows.length === 0) return 0;
    const done = new Set(
      await this.messages.replaceSentBodies(
        rows.map((r) => ({ id: String(r.message_id), body: r.masked_body })),
      ),
    );
    // Marked only once the text is masked (a message still waiting to go is left for a later
    // change or round); a failure in between masks it again next round.
    const masked = rows.filter((r) => done.has(String(r.message_id))).map((r) => r.id);
    await this.verifications.markMasked(masked, new Date());
    return masked.length;
  }
}
