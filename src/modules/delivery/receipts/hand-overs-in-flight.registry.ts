import { Injectable } from '@nestjs/common';

/** A hand-over under way: `accepted` notes the provider ids it got, `end` that it is recorded. */
export interface HandOverInFlight {
  accepted(providerIds: string[]): void;
  end(): void;
}

/**
 * The hand-overs this process has started and not yet recorded, by the provider ids they got. An
 * SMSC often sends a message's receipt before the worker has written SENT; such a receipt waits
 * for that record (briefly, `maxWaitMs` at most) and then matches its message on arrival, instead
 * of being stored unmatched, then read, matched and marked again once SENT is written.
 */
@Injectable()
export class HandOversInFlight {
  private readonly byProviderId = new Map<string, Promise<void>>();
  private open = 0;
  /** The longest a receipt waits for its hand-over's record. */
  maxWaitMs = 2_000;

  begin(): HandOverInFlight {
    let resolve!: () => void;
    const recorded = new Promise<void>((r) => (resolve = r));
    const ids: string[] = [];
    this.open++;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      this.open--;
      for (const id of ids) if (this.byProviderId.get(id) === recorded) this.byProviderId.delete(id);
      resolve();
    };
    // A record retried while MySQL restarts does not hold its receipts for longer than this.
    const timer = setTimeout(end, this.maxWaitMs);
    timer.unref();
    return {
      accepted: (providerIds) => {
        if (ended) return;
        for (const id of providerIds) {
          if (id === '') continue;
          ids.push(id);
          this.byProviderId.set(id, recorded);
        }
      },
      end,
    };
  }

  /** Whether any hand-over is under way. */
  get busy(): boolean {
    return this.open > 0;
  }

  /** Resolves once the hand-over that got this provider id is recorded; undefined when none is under way. */
  recorded(providerId: string): Promise<void> | undefined {
    return this.byProviderId.get(providerId);
  }
}
