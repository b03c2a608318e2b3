import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { RepeatLimiter } from '../../platform/logging/repeat-limiter.js';
import { PeriodicTask } from '../../platform/periodic/periodic-task.js';
import { VerificationChecks } from './verification-checks.service.js';

const PER_ROUND = 500;

/**
 * Closes pending verifications past their end as `expired`, so every outcome is counted (and
 * told, through VerificationOutcomes) even when nobody checks or reads it again.
 */
@Injectable()
export class VerificationExpiry implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('VerificationExpiry');
  private readonly task: PeriodicTask;

  constructor(@Inject(APP_CONFIG) config: AppConfig, checks: VerificationChecks) {
    this.task = new PeriodicTask({
      run: async () => {
        await checks.expireDue(PER_ROUND);
      },
      everyMs: config.sweepIntervalMs,
      logger: this.logger,
      warnings: new RepeatLimiter(this.logger),
      failure: 'verification expiry failed',
      cause: 'sweep',
    });
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }
}
