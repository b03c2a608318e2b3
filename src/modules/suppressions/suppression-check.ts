import { Injectable } from '@nestjs/common';
import type { Channel } from '../messages/channel.js';
import { SuppressionStore, type ListOwner } from './suppression.store.js';

export const SUPPRESSED = 'SUPPRESSED';

/**
 * Run by the send pipeline on a request's recipients before pricing: every accepted recipient
 * on the account's list for the channel (its test list for a test key) becomes REJECTED, reason SUPPRESSED (not charged, not
 * sent). One statement per chunk of recipients.
 */
@Injectable()
export class SuppressionCheck {
  constructor(private readonly store: SuppressionStore) {}

  /** Marks the suppressed entries in place; answers how many. */
  async apply(
    owner: ListOwner,
    channel: Channel,
    entries: Array<{ recipient: string; status: string; reason?: string }>,
  ): Promise<number> {
    const candidates = entries.filter((e) => e.status === 'ACKNOWLEDGED').map((e) => e.recipient);
    if (candidates.length === 0) return 0;
    const suppressed = await this.store.suppressedAmong(owner, channel, candidates);
    if (suppressed.size === 0) return 0;
    let n = 0;
    for (const e of entries) {
      if (e.status === 'ACKNOWLEDGED' && suppressed.has(e.recipient)) {
        e.status = 'REJECTED';
        e.reason = SUPPRESSED;
        n++;
      }
    }
    return n;
  }
}
