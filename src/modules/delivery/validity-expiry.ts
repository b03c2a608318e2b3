import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { RepeatLimiter } from '../../platform/logging/repeat-limiter.js';
import { ScheduleStore } from '../messages/schedule.store.js';
import { CLAIM_LEASE_MS, VALIDITY_PERIOD_ELAPSED } from './claim-lease.js';
import { MessageStateService } from './message-state.service.js';

const BATCH = 500;
const BATCHES_PER_ROUND = 20;
/** Validity is whole seconds, at least a minute: a few seconds late is on time. */
const MAX_INTERVAL_MS = 5000;

/**
 * Ends messages that waited past their validity without being handed to a provider: EXPIRED,
 * reason VALIDITY_PERIOD_ELAPSED, refunded (once: the state change happens once, and the ledger
 * takes one refund per message). The dispatcher does the same for the messages it is about to
 * hand over; this finds the ones no job is looking at (a long retry backoff, a provider down).
 * Messages a worker is handing over right now are left to it.
 */
@Injectable()
export class ValidityExpiry implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ValidityExpiry.name);
  private readonly warnings = new RepeatLimiter(this.logger);
  private timer?: NodeJS.Timeout;
  private running = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly store: ScheduleStore,
    private readonly states: MessageStateService,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(
      () => void this.expire(),
      Math.min(this.config.sweepIntervalMs, MAX_INTERVAL_MS),
    );
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
    this.warnings.flush();
  }

  /** Returns how many messages ended EXPIRED. */
  async expire(): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    let expired = 0;
    try {
      for (let round = 0; round < BATCHES_PER_ROUND; round++) {
        const now = new Date();
        const rows = await this.store.findOutOfValidity(now, new Date(now.getTime() - CLAIM_LEASE_MS), BATCH);
        if (rows.length === 0) break;
        const done = await this.states.apply(
          rows.map((r) => ({
            id: String(r.id),
            status: 'EXPIRED' as const,
            reason: VALIDITY_PERIOD_ELAPSED,
            refund: true,
            unlessHandingOver: true,
          })),
        );
        expired += done.length;
        if (rows.length < BATCH || done.length === 0) break;
      }
      if (expired)
        this.logger.log(`${expired} message(s) not handed over within their validity: EXPIRED, refunded`);
    } catch (err) {
      this.warnings.warn(`validity expiry failed: ${(err as Error).message}`);
    } finally {
      this.running = false;
    }
    return expired;
  }
}
