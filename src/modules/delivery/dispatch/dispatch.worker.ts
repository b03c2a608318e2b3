import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { takeJobs } from '../../../platform/queueing/take-jobs.js';
import type { Job, Queue } from 'bull';
import { CHANNELS, type Channel } from '../../messages/channel.js';
import { deletePointers } from './shared-jobs.js';
import type { DispatchJob } from './dispatch.constants.js';
import { DeliveryReportService } from '../receipts/delivery-report.service.js';
import { DispatchProducer } from './dispatch.producer.js';
import { Dispatcher } from './dispatcher.service.js';
import { TransportRegistry } from './transport.registry.js';
import { INBOUND_SINK, type InboundSink } from '../transports/transport.js';

/**
 * Registers the processors with per-queue concurrency from configuration (decorators would fix
 * it at compile time). On shutdown, stops taking jobs, lets the ones in hand finish, then
 * closes the transports (callbacks have their own processor): a job in flight finishes or goes back to the queue, never lost.
 */
@Injectable()
export class DispatchWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Worker');
  // One line per cause every few seconds: during a MySQL outage every receipt would fail alike.

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly producer: DispatchProducer,
    private readonly dispatcher: Dispatcher,
    private readonly transports: TransportRegistry,
    private readonly reports: DeliveryReportService,
    @Inject(INBOUND_SINK) private readonly inbound: InboundSink,
  ) {}

  onApplicationBootstrap(): void {
    for (const channel of CHANNELS) {
      const transport = this.transports.get(channel);
      // A rejection reaches the transport, which then asks the provider to deliver the report again.
      transport.onReport((report) => this.reports.receive(transport.name, report));
      transport.onInbound?.((sms) => this.inbound.receive(sms));
      const queue = this.producer.queue(channel);
      takeJobs(
        queue,
        'send',
        this.config.concurrency[channel],
        (job) => this.run(queue, channel, job),
        this.logger,
      );
    }
    const test = this.transports.test();
    test.onReport((report) => this.reports.receive(test.name, report));
    test.onInbound?.((sms) => this.inbound.receive(sms));
    // The queues that serve every channel (each job says which), with places of their own: live
    // high-priority requests (PRIORITY_CONCURRENCY) and test keys' requests (TEST_CONCURRENCY).
    const everyChannel: Array<[Queue<DispatchJob>, number]> = [
      [this.producer.priorityQueue(), this.config.concurrency.priority],
      [this.producer.testQueue(), this.config.testTraffic.concurrency],
    ];
    for (const [queue, places] of everyChannel)
      takeJobs(queue, 'send', places, (job) => this.run(queue, job.data.channel ?? 'sms', job), this.logger);
    this.logger.log(
      `processing sms×${this.config.concurrency.sms} email×${this.config.concurrency.email} chat×${this.config.concurrency.chat} priority×${this.config.concurrency.priority} test×${this.config.testTraffic.concurrency} callbacks×${this.config.concurrency.callbacks}`,
    );
  }

  /** A shared job's pointers (shared-jobs.ts) go once its messages are handed over. */
  private async run(queue: Queue<DispatchJob>, channel: Channel, job: Job<DispatchJob>) {
    const done = await this.dispatcher.handle(channel, job);
    await deletePointers(queue, job);
    return done;
  }

  async beforeApplicationShutdown(): Promise<void> {
    const queues = this.producer.dispatchQueues();
    // pause(local) waits for the active jobs of this process to finish and takes no new ones.
    await Promise.all(queues.map((q) => q.pause(true).catch(() => undefined)));
    // Receipts that came before their SENT was written are applied before the databases close.
    await this.reports.drainEarly();
    await this.transports.onApplicationShutdown();
  }
}
