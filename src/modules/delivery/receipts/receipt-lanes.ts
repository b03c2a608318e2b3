import { MicroBatcher } from '../../../platform/batching/micro-batcher.js';

export interface ReceiptLanesOptions<T> {
  /** Lanes applied at once; each applies one batch at a time. */
  lanes: number;
  maxBatch: number;
  flush: (batch: T[]) => Promise<void>;
}

/**
 * Receipts applied in several batches at once, a provider id always in the same lane: an SMSC
 * that resends a receipt (or sends a second, different one for the same message) has them
 * applied in the order they came, since a lane's next batch starts only when its batch before
 * has committed. Batches of two lanes, which never share a provider id, may commit in either
 * order. The id is compared as written, less leading zeros and case: resends of one SMSC keep
 * their format.
 */
export class ReceiptLanes<T> {
  private readonly lanes: MicroBatcher<T>[];

  constructor(options: ReceiptLanesOptions<T>) {
    if (!Number.isInteger(options.lanes) || options.lanes < 1)
      throw new RangeError('lanes must be at least 1');
    this.lanes = Array.from(
      { length: options.lanes },
      () => new MicroBatcher<T>({ maxBatch: options.maxBatch, flush: options.flush }),
    );
  }

  /** Settles once the item's batch has been applied (rejects when it was not). */
  push(providerId: string, item: T): Promise<void> {
    return this.lanes[laneOf(providerId, this.lanes.length)].push(item);
  }
}

/** The lane of a provider id: a string hash (FNV-1a) of its normalised form. */
export function laneOf(providerId: string, lanes: number): number {
  const key = providerId
    .trim()
    .replace(/^0+(?=.)/, '')
    .toLowerCase();
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % lanes;
}
