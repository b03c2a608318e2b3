import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import type { Channel } from '../../messages/channel.js';
import { HttpChatTransport } from '../transports/http-chat.transport.js';
import { SandboxTransport } from '../transports/sandbox.transport.js';
import { SmppTransport } from '../smpp/smpp.transport.js';
import { SmtpTransport } from '../transports/smtp.transport.js';
import { TestTransport } from '../transports/test.transport.js';
import type { Transport } from '../transports/transport.js';
import { ConnectorPool } from '../smpp/connector.pool.js';
import { RoutedSmppTransport } from '../smpp/routed-smpp.transport.js';
import { RoutingService } from '../smpp/routing.service.js';

/** The factory: one transport per channel, as configured. */
export function createTransport(channel: Channel, config: AppConfig, logger: Logger): Transport {
  const kind = config.transports[channel];
  if (kind === 'smpp') {
    return new SmppTransport({
      url: config.smppUrl!,
      tps: config.smppTps,
      window: config.smppWindow,
      responseTimeoutMs: config.smppResponseTimeoutMs,
      lateResponseWaitMs: config.smppLateResponseWaitMs,
      logger,
    });
  }
  if (kind === 'smtp') {
    return new SmtpTransport({
      url: config.smtpUrl!,
      pool: { maxConnections: 5, maxMessages: 1000 },
      tls: { mode: config.smtp.tls, ca: config.smtp.ca, rejectUnauthorized: config.smtp.rejectUnauthorized },
      idleMs: config.smtp.poolIdleMs,
      messageIdDomain: config.smtp.messageIdDomain,
      ehloName: config.smtp.ehloName,
    });
  }
  if (kind === 'http') {
    return new HttpChatTransport({ url: config.chatApiUrl!, token: config.chatApiToken });
  }
  return new SandboxTransport({ channel, deliveryDelayMs: config.sandboxDeliveryDelayMs });
}

@Injectable()
export class TransportRegistry implements OnApplicationShutdown {
  private readonly logger = new Logger('Transports');
  private readonly transports = new Map<Channel, Transport>();
  /** Every channel's test-key requests go here, whatever the channel's configured transport. */
  private readonly testTransport: TestTransport;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly connectors: ConnectorPool,
    private readonly routing: RoutingService,
  ) {
    this.testTransport = new TestTransport(
      { channel: 'sms', deliveryDelayMs: config.sandboxDeliveryDelayMs },
      config.testTraffic.dispatchRate,
    );
  }

  /** The transport for a request made with a test key: it plays the provider and reaches none. */
  test(): Transport {
    return this.testTransport;
  }

  get(channel: Channel): Transport {
    let t = this.transports.get(channel);
    if (!t) {
      // SMS over SMPP goes through the connectors (SMPP_URL is the default one).
      t =
        this.config.transports[channel] === 'smpp'
          ? new RoutedSmppTransport(this.connectors, this.routing)
          : createTransport(channel, this.config, this.logger);
      if (t.name === 'sandbox') {
        const loud = this.config.env === 'production' ? 'warn' : 'log';
        this.logger[loud](`${channel}: sandbox transport, no messages leave this system`);
      }
      this.transports.set(channel, t);
    }
    return t;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(
      [...this.transports.values(), this.testTransport].map((t) => t.close().catch(() => undefined)),
    );
  }
}
