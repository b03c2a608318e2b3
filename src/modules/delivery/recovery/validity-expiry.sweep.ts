import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { PeriodicJob } from '../../../platform/periodic/periodic-job.js';
import { ScheduleStore, type Cancellable } from '../../messages/schedule.store.js';
import { VALIDITY_PERIOD_ELAPSED } from '../lifecycle/claim-lease.js';
import { CLAIM_LEASE_MS } from '../retry-policy.js';
import { MessageStateService } from '../lifecycle/message-state.service.js';

const BATCH = 500;
const BATCHES_PER_ROUND = 20;
/** A cancel asked this long ago whose messages still wait did not finish (its process died). */
const UNFINISHED_CANCEL_MS = 60_000;
/** Validity is whole seconds, at least a minute: a few seconds late is on time. */
const MAX_INTERVAL_MS = 5000;

/**
 * Ends messages that waited past their validity without being handed to a provider: EXPIRED,
 * reason VALIDITY_PERIOD_ELAPSED, refunded (once: the state change happens once, and the ledger
 * takes one refund per message). The dispatcher does the same for the messages it is about to
 * hand over; this finds the ones no job is looking at (a long retry backoff, a provider down).
 * Messages a worker is handing over right now are left to it. The same round finishes a cancel
 * whose process died half-way: workers start nothing of a request being cancelled, so its
 * messages would otherwise wait for ever.
 */
@Injectable()
export class ValidityExpiry extends PeriodicJob<number> {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly store: ScheduleStore,
    private readonly states: MessageStateService,
  ) {
    super(ValidityExpiry.name, {
      everyMs: Math.min(config.sweepIntervalMs, MAX_INTERVAL_MS),
      failure: 'validity expiry failed',
    });
  }

  /** Returns how many messages ended EXPIRED (or CANCELLED, for a cancel left unfinished). */
  async expire(): Promise<number> {
    return (await this.runNow()) ?? 0;
  }

  protected async round(): Promise<number> {
    const expired = await this.endAll(
      (now, staleClaim) => this.store.findOutOfValidity(now, staleClaim, BATCH),
      { status: 'EXPIRED', reason: VALIDITY_PERIOD_ELAPSED, refund: true },
    );
    if (expired)
      this.logger.log(`${expired} message(s) not handed over within their validity: EXPIRED, refunded`);
    const cancelled = await this.endAll(
      (now, staleClaim) =>
        this.store.findUnfinishedCancels(new Date(now.getTime() - UNFINISHED_CANCEL_MS), staleClaim, BATCH),
      { status: 'CANCELLED', reason: null },
    );
    if (cancelled) this.logger.warn(`${cancelled} message(s) of an unfinished cancel: CANCELLED, refunded`);
    return expired + cancelled;
  }

  private async endAll(
    find: (now: Date, staleClaim: Date) => Promise<Cancellable[]>,
    change: { status: 'EXPIRED' | 'CANCELLED'; reason: string | null; refund?: boolean },
  ): Promise<number> {
    let ended = 0;
    for (let round = 0; round < BATCHES_PER_ROUND; round++) {
      const now = new Date();
      const rows = await find(now, new Date(now.getTime() - CLAIM_LEASE_MS));
      if (rows.length === 0) break;
      const done = await this.states.apply(
        rows.map((r) => ({ id: String(r.id), ...change, unlessHandingOver: true })),
      );
      ended += done.length;
      if (rows.length < BATCH || done.length === 0) break;
    }
    return ended;
  }
}
