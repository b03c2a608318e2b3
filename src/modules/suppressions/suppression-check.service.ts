import { Injectable } from '@nestjs/common';
import { MicroBatcher } from '../../platform/batching/micro-batcher.js';
import type { Channel } from '../messages/channel.js';
import { SuppressionStore, type ListOwner, type SuppressionLookup } from './suppression.store.js';

/** A request naming at most this many recipients is looked up together with the others of its tick. */
const SHARED_LOOKUP_MAX = 50;
/** Lookups per shared statement. */
const SHARED_BATCH = 200;

export const SUPPRESSED = 'SUPPRESSED';

/**
 * Run by the send pipeline on a request's recipients before pricing: every accepted recipient
 * on the account's list for the channel (its test list for a test key) becomes REJECTED, reason SUPPRESSED (not charged, not
 * sent). One statement per chunk of recipients, or, for small requests, one per tick shared by all of them.
 */
@Injectable()
export class SuppressionCheck {
  /**
   * Small requests (a single send is the common case) that arrive in the same tick share one
   * statement; each tick's lookups go at once, never waiting for an earlier statement.
   */
  private readonly shared = new MicroBatcher<SuppressionLookup, Set<string>>({
    maxBatch: SHARED_BATCH,
    overlap: true,
    flush: async (lookups) =>
      (await this.store.suppressedAmongMany(lookups)).map((value) => ({ status: 'fulfilled', value })),
  });

  constructor(private readonly store: SuppressionStore) {}

  /** Marks the suppressed entries in place; answers how many. */
  async apply(
    owner: ListOwner,
    channel: Channel,
    entries: Array<{ recipient: string; status: string; reason?: string }>,
  ): Promise<number> {
    const candidates = entries.filter((e) => e.status === 'ACKNOWLEDGED').map((e) => e.recipient);
    if (candidates.length === 0) return 0;
    const suppressed =
      candidates.length <= SHARED_LOOKUP_MAX
        ? await this.shared.push({ owner, channel, recipients: candidates })
        : await this.store.suppressedAmong(owner, channel, candidates);
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
