import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { createTransport } from '../delivery/dispatch/transport.registry.js';
import { parseSmppUrl } from '../delivery/smpp/smpp.transport.js';
import type { Transport, TransportHealth } from '../delivery/transports/transport.js';
import type { Channel } from '../messages/channel.js';
import { ConnectorHealth } from './connector-health.indicator.js';
import { PROBE_TIMEOUT_MS } from './dependency.indicators.js';
import { IN_PROCESS_DISPATCH, type InProcessDispatch } from './health.tokens.js';
import { SingleFlight, errorText, smppReachable, timed } from './probes.js';

const SANDBOX: TransportHealth = {
  status: 'up',
  message: 'sandbox transport: no messages leave this system',
  response_time_ms: 0,
};

/**
 * The configured provider of a channel, asked how it is. Where the dispatch workers run in
 * this process, the transports they use answer for themselves (an SMPP bind, a pooled SMTP
 * connection). In an API-only process (RUN_WORKERS=false) there are none: SMPP is probed
 * with one unbound enquire_link over a fresh TCP connection (no bind, so no session is taken
 * from the SMSC's allowance), or, without SMPP_URL, judged by the binds the workers report for
 * the connectors; SMTP and HTTP through a probe-only transport. Never throws.
 */
@Injectable()
export class ProviderProbes implements OnApplicationShutdown {
  private readonly logger = new Logger('Health');
  private readonly own = new Map<Channel, Transport>();
  private readonly flights = new Map<Channel, SingleFlight<TransportHealth>>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(IN_PROCESS_DISPATCH) private readonly dispatch: InProcessDispatch | null,
    private readonly connectors: ConnectorHealth,
  ) {}

  kind(channel: Channel): string {
    return this.config.transports[channel];
  }

  probe(channel: Channel): Promise<TransportHealth> {
    let flight = this.flights.get(channel);
    if (!flight) this.flights.set(channel, (flight = new SingleFlight()));
    return flight.run(() => this.run(channel));
  }

  private async run(channel: Channel): Promise<TransportHealth> {
    const kind = this.kind(channel);
    if (kind === 'sandbox') return SANDBOX;
    const started = performance.now();
    try {
      const registry = this.dispatch?.registry;
      if (!registry && kind === 'smpp') {
        if (!this.config.smppUrl) {
          let links: TransportHealth | undefined;
          await timed(async () => (links = await this.connectors.check()), PROBE_TIMEOUT_MS, 'connectors');
          return links!;
        }
        const { host, port } = parseSmppUrl(this.config.smppUrl!);
        const r = await smppReachable(host, port, PROBE_TIMEOUT_MS - 50);
        return { status: r.ok ? 'up' : 'down', message: r.message, response_time_ms: r.ms };
      }
      const transport = registry ? registry.get(channel) : this.probeTransport(channel);
      let health: TransportHealth | undefined;
      await timed(async () => (health = await transport.health()), PROBE_TIMEOUT_MS, `${kind} provider`);
      const fault = this.dispatch?.faults.get(channel);
      if (fault && health!.status === 'up') {
        // The probe gets through but the messages do not (credentials refused for sending, say).
        return {
          status: 'down',
          message: `${health!.message}, but messages are refused since ${fault.since.toISOString()}: ${fault.reason} (${fault.detail}); fix the configuration`,
          response_time_ms: Math.round(health!.response_time_ms),
        };
      }
      return { ...health!, response_time_ms: Math.round(health!.response_time_ms) };
    } catch (err) {
      return {
        status: 'down',
        message: `${kind} provider: ${errorText(err)}`,
        response_time_ms: Math.round(performance.now() - started),
      };
    }
  }

  private probeTransport(channel: Channel): Transport {
    let t = this.own.get(channel);
    if (!t) this.own.set(channel, (t = createTransport(channel, this.config, this.logger)));
    return t;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.own.values()].map((t) => t.close().catch(() => undefined)));
  }
}

/** `external_services.sms_server`: the SMS provider. */
@Injectable()
export class SmsServerIndicator {
  constructor(
    private readonly health: HealthIndicatorService,
    private readonly providers: ProviderProbes,
  ) {}

  async check() {
    const session = this.health.check('sms_server');
    const h = await this.providers.probe('sms');
    const data = { message: h.message, response_time_ms: h.response_time_ms };
    return h.status === 'up' ? session.up(data) : session.down(data);
  }
}

/** `external_services.client_server`: the e-mail and chat providers (healthy when both are). */
@Injectable()
export class ClientServerIndicator {
  constructor(
    private readonly health: HealthIndicatorService,
    private readonly providers: ProviderProbes,
  ) {}

  async check() {
    const session = this.health.check('client_server');
    const [email, chat] = await Promise.all([this.providers.probe('email'), this.providers.probe('chat')]);
    const message = `e-mail (${this.providers.kind('email')}): ${email.message}; chat (${this.providers.kind('chat')}): ${chat.message}`;
    const data = { message, response_time_ms: Math.max(email.response_time_ms, chat.response_time_ms) };
    return email.status === 'up' && chat.status === 'up' ? session.up(data) : session.down(data);
  }
}
