import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { CHANNELS } from '../messages/channel.js';
import { DeliveryReportService } from './delivery-report.service.js';
import { DispatchProducer } from './dispatch.producer.js';
import { Dispatcher } from './dispatcher.js';
import { TransportRegistry } from './transport.registry.js';
import { INBOUND_SINK, type InboundSink } from './transports/transport.js';

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
      void this.producer
        .queue(channel)
        .process('send', this.config.concurrency[channel], (job) => this.dispatcher.handle(channel, job));
    }
    const test = this.transports.test();
    test.onReport((report) => this.reports.receive(test.name, report));
    test.onInbound?.((sms) => this.inbound.receive(sms));
    // Live high-priority requests, every channel, with places of their own (PRIORITY_CONCURRENCY).
    void this.producer
      .priorityQueue()
      .process('send', this.config.concurrency.priority, (job) =>
        this.dispatcher.handle(job.data.channel ?? 'sms', job),
      );
    // Test keys' requests, every channel, with a few workers of their own (TEST_CONCURRENCY).
    void this.producer
      .testQueue()
      .process('send', this.config.testTraffic.concurrency, (job) =>
        this.dispatcher.handle(job.data.channel ?? 'sms', job),
      );
    this.logger.log(
      `processing sms×${this.config.concurrency.sms} email×${this.config.concurrency.email} chat×${this.config.concurrency.chat} priority×${this.config.concurrency.priority} test×${this.config.testTraffic.concurrency} callbacks×${this.config.concurrency.callbacks}`,
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    const queues = [
      ...CHANNELS.map((c) => this.producer.queue(c)),
      this.producer.priorityQueue(),
      this.producer.testQueue(),
    ];
    // pause(local) waits for the active jobs of this process to finish and takes no new ones.
    await Promise.all(queues.map((q) => q.pause(true).catch(() => undefined)));
    // Receipts that came before their SENT was written are applied before the databases close.
    await this.reports.drainEarly();
    await this.transports.onApplicationShutdown();
  }
}
