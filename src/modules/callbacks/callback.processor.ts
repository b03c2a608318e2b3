import { InjectQueue } from '@nestjs/bull';
import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { Queue } from 'bull';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { takeJobs } from '../../platform/queueing/take-jobs.js';
import { CALLBACK_QUEUE, type CallbackJob } from './callback-job.js';
import { CallbackSender } from './callback.sender.js';

/**
 * Registers the callback processor with its concurrency from configuration. On shutdown it
 * stops taking jobs and lets the ones in hand finish: a callback in flight finishes or goes
 * back to the queue, never lost.
 */
@Injectable()
export class CallbackProcessor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Callbacks');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sender: CallbackSender,
    @InjectQueue(CALLBACK_QUEUE) private readonly callbacks: Queue<CallbackJob>,
  ) {}

  onApplicationBootstrap(): void {
    takeJobs(
      this.callbacks,
      'deliver',
      this.config.concurrency.callbacks,
      (job) => this.sender.handle(job),
      this.logger,
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    // pause(local) waits for the active jobs of this process to finish and takes no new ones.
    await this.callbacks.pause(true).catch(() => undefined);
  }
}
