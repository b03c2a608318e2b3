import { Logger } from '@nestjs/common';
import { RepeatLimiter } from '../../../platform/logging/repeat-limiter.js';
import type { Channel } from '../../messages/channel.js';
import type {
  DeliveryReport,
  OutboundMessage,
  ReportHandler,
  Transport,
  TransportHealth,
  TransportResult,
} from './transport.js';
import { withFields } from '../../../platform/objects/with-fields.js';

export interface SandboxTransportOptions {
  channel: Channel;
  /** How long after acceptance the delivery report follows. */
  deliveryDelayMs: number;
}

export const SANDBOX_UNDELIVERED = 'SANDBOX_UNDELIVERED';

export type PendingReport = Omit<DeliveryReport, 'occurredAt'>;

/** A report due later, and what follows it once it is taken (a test recipient's reply). */
interface Pending {
  report: PendingReport;
  then?: () => Promise<void>;
}

/**
 * Whether the sandbox should pretend this recipient could not be reached: a number ending in
 * 0000 (sms, chat), or an address whose local part is `fail` (email). Lets clients exercise
 * their failure handling without a real provider.
 */
export function sandboxFails(channel: Channel, recipient: string): boolean {
  if (channel === 'email') {
    const at = recipient.lastIndexOf('@');
    return at > 0 && recipient.slice(0, at).toLowerCase() === 'fail';
  }
  return recipient.endsWith('0000');
}

/** Accepts everything, sends nothing, and reports deliveries after a delay, as a provider would. */
export class SandboxTransport implements Transport {
  readonly name: string = 'sandbox';
  private readonly logger = new Logger(SandboxTransport.name);
  // During a database outage every report fails alike: one line per cause every few seconds.
  private readonly failures = new RepeatLimiter({ warn: (m) => this.logger.error(m) });
  private handler?: ReportHandler;
  private readonly pending = new Map<NodeJS.Timeout, Pending>();
  private closed = false;

  protected get isClosed(): boolean {
    return this.closed;
  }

  /** The channel this instance stands in for. */
  readonly channel: Channel;

  constructor(private readonly options: SandboxTransportOptions) {
    this.channel = options.channel;
  }

  async send(messages: OutboundMessage[]): Promise<TransportResult[]> {
    if (this.isClosed) return messages.map(() => ({ kind: 'transient', reason: 'TRANSPORT_CLOSED' }));
    return messages.map((message) => {
      const providerMessageId = `sandbox-${message.uuid}`;
      // The message's own channel decides, so one instance may serve several channels.
      const fails = sandboxFails(message.channel, message.recipient);
      this.schedule({
        providerMessageId,
        status: fails ? 'UNDELIVERED' : 'DELIVERED',
        reason: fails ? SANDBOX_UNDELIVERED : null,
      });
      return { kind: 'accepted', providerMessageId };
    });
  }

  /** Reports `report` after the delivery delay, as a provider would; then runs `then`, if given. */
  protected schedule(report: PendingReport, then?: () => Promise<void>): void {
    const pending: Pending = { report, then };
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      void this.deliver(pending);
    }, this.options.deliveryDelayMs);
    // A pending report must not keep a finished process (a CLI run, a test) alive.
    timer.unref();
    this.pending.set(timer, pending);
  }

  onReport(handler: ReportHandler): void {
    this.handler = handler;
  }

  async health(): Promise<TransportHealth> {
    return { status: 'up', message: 'sandbox transport: no messages leave this system', response_time_ms: 0 };
  }

  /**
   * Pending reports are fired now rather than dropped: every message this transport accepted
   * then ends DELIVERED/UNDELIVERED instead of sitting in SENT forever after a restart, since
   * no provider exists that could report it later. close() waits for the handler to take them.
   */
  async close(): Promise<void> {
    this.closed = true;
    const reports = [...this.pending.entries()];
    this.pending.clear();
    for (const [timer] of reports) clearTimeout(timer);
    await Promise.all(reports.map(([, pending]) => this.deliver(pending)));
  }

  private async deliver({ report, then }: Pending): Promise<void> {
    if (!this.handler) {
      this.logger.warn(
        `no report handler registered; dropping ${report.status} for ${report.providerMessageId}`,
      );
      return;
    }
    try {
      await this.handler(withFields(report, { occurredAt: new Date() }));
      await then?.();
    } catch (err) {
      // The handler owns persistence and retries; here it can only be noted.
      const reason = (err as Error).message;
      this.failures.warn(
        `report handler or what follows it failed for ${report.providerMessageId}: ${reason}`,
        `handler: ${reason}`,
      );
    }
  }
}
