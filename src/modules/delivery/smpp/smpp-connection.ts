import { performance } from 'node:perf_hooks';
import smpp from 'smpp';
import { PeriodicTask } from '../../../platform/periodic/periodic-task.js';
import { errorMessage, Link } from './smpp-link.js';
import { describeStatus, ESME_RINVCMDID, ESME_ROK, type SmppEndpoint } from './smpp-pdu.js';

export interface SmppLogger {
  warn(msg: string): void;
  log(msg: string): void;
}

export interface SmppConnectionOptions {
  endpoint: SmppEndpoint;
  systemType?: string;
  /** transceiver (default) also takes receipts on the same bind; transmitter only sends. */
  bindMode?: 'transceiver' | 'transmitter';
  connectTimeoutMs: number;
  responseTimeoutMs: number;
  enquireLinkIntervalMs: number;
  reconnectMinMs: number;
  reconnectMaxMs: number;
  logger: SmppLogger;
  /** Incoming deliver_sm (receipts and MO messages); the handler must answer it on the link. */
  onDeliverSm: (link: Link, pdu: smpp.PDU) => void;
}

const UNBIND_WAIT_MS = 1000;

interface BoundWaiter {
  resolve: (error: string | null) => void;
}

/**
 * The transceiver bind of the SMPP transport: opened on first use and kept, rebound with
 * backoff after a failed bind or a drop, kept alive with enquire_link, answering the SMSC's own
 * requests, and unbound on close. `link` is the bound connection, or null.
 */
export class SmppConnection {
  link: Link | null = null;
  lastError: string | null = null;
  private connecting: Link | null = null;
  private started = false;
  private closedFlag = false;
  private closing: Promise<void> | null = null;
  private backoffMs: number;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private nextAttemptAt = 0;
  private waiters = new Set<BoundWaiter>();
  readonly where: string;

  constructor(private readonly options: SmppConnectionOptions) {
    this.where = `${options.endpoint.host}:${options.endpoint.port}`;
    this.backoffMs = options.reconnectMinMs;
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  /** True before the first attempt and while one is under way: a short wait may still see it bound. */
  get attemptPending(): boolean {
    return !this.started || this.connecting !== null;
  }

  close(): Promise<void> {
    if (!this.closing) this.closing = this.shutdown();
    return this.closing;
  }

  /** null once bound, else why not. Waits for the attempt under way or the next scheduled one, within `timeoutMs`. */
  waitBound(timeoutMs: number): Promise<string | null> {
    if (this.link) return Promise.resolve(null);
    if (this.closed) return Promise.resolve('SMPP transport closed');
    if (!this.started) {
      this.started = true;
      this.attempt();
    } else if (!this.connecting && this.nextAttemptAt - Date.now() > timeoutMs) {
      return Promise.resolve(this.notBound());
    }
    return new Promise((resolve) => {
      const waiter: BoundWaiter = {
        resolve: (error) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(error);
        },
      };
      const timer = setTimeout(() => waiter.resolve(this.notBound()), timeoutMs);
      this.waiters.add(waiter);
    });
  }

  notBound(): string {
    return `SMPP not bound to ${this.where}: ${this.lastError ?? 'connecting'}`;
  }

  private notifyWaiters(error: string | null): void {
    for (const waiter of [...this.waiters]) waiter.resolve(error);
  }

  private attempt(): void {
    this.reconnectTimer = null;
    if (this.closed) return;
    const { host, port, systemId, password } = this.options.endpoint;
    const session = smpp.connect({ host, port });
    const link = new Link(session);
    this.connecting = link;
    let settled = false;

    const fail = (reason: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      this.connecting = null;
      link.failAll(reason);
      session.destroy();
      this.lastError = reason;
      this.options.logger.warn(`SMPP ${this.where}: ${reason}`);
      this.notifyWaiters(this.notBound());
      this.scheduleReconnect();
    };
    const timer = setTimeout(
      () => fail(`connect/bind timed out after ${this.options.connectTimeoutMs} ms`),
      this.options.connectTimeoutMs,
    );

    // The library emits 'error' for stream and PDU-parse errors; after a parse error it stops reading for good,
    // so the connection is dropped either way and the close handler takes over.
    session.on('error', (error) => {
      link.lastError = error.message;
      session.destroy();
    });
    session.on('close', () => {
      if (!settled)
        return fail(`connection closed during bind${link.lastError ? `: ${link.lastError}` : ''}`);
      this.onLinkClosed(link);
    });
    session.on('pdu', (pdu) => this.onPdu(link, pdu));
    session.on('connect', () => {
      const bind = new smpp.PDU(`bind_${this.options.bindMode ?? 'transceiver'}`, {
        system_id: systemId,
        password,
        system_type: this.options.systemType ?? '',
      });
      void link.request(bind, this.options.connectTimeoutMs).then((reply) => {
        if (!reply.ok) return fail(`bind failed: ${reply.reason}`);
        if (reply.pdu.command_status !== ESME_ROK) {
          return fail(`bind refused for ${systemId}: ${describeStatus(reply.pdu.command_status)}`);
        }
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.connecting = null;
        if (this.closed) {
          link.failAll('SMPP transport closed');
          session.destroy();
          return;
        }
        link.bound = true;
        this.link = link;
        this.lastError = null;
        this.backoffMs = this.options.reconnectMinMs;
        this.startEnquireLink(link);
        this.options.logger.log(`SMPP bound to ${this.where} as ${systemId}`);
        this.notifyWaiters(null);
      });
    });
  }

  private onLinkClosed(link: Link): void {
    const reason = `connection lost${link.lastError ? ` (${link.lastError})` : ''}`;
    link.failAll(reason);
    if (this.link !== link) return;
    this.link = null;
    this.lastError = reason;
    if (this.closed) return;
    this.options.logger.warn(`SMPP ${this.where}: ${reason}; reconnecting`);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    // "Equal jitter": at least half the backoff, so a flapping SMSC still gets breathing room.
    const delay = this.backoffMs / 2 + (Math.random() * this.backoffMs) / 2;
    this.backoffMs = Math.min(this.backoffMs * 2, this.options.reconnectMaxMs);
    this.nextAttemptAt = Date.now() + delay;
    this.reconnectTimer = setTimeout(() => this.attempt(), delay);
  }

  private startEnquireLink(link: Link): void {
    link.enquireTimer = new PeriodicTask({
      // Not awaited: one enquire_link per interval, whether or not the last one was answered.
      run: () => this.enquire(link),
      everyMs: this.options.enquireLinkIntervalMs,
      logger: this.options.logger,
      failure: `SMPP ${this.where}: enquire_link not sent`,
    });
    link.enquireTimer.start();
  }

  private enquire(link: Link): void {
    const sentAt = performance.now();
    void link.request(new smpp.PDU('enquire_link'), this.options.responseTimeoutMs).then((reply) => {
      // A busy SMSC answering late still sends PDUs; dropping that link would resend every submit in flight.
      if (reply.ok || link.dead || link.lastHeardAt > sentAt) return;
      // No answer means the link is gone even if TCP has not noticed; reconnecting is the only way back.
      link.lastError = `enquire_link unanswered: ${reply.reason}`;
      link.session.destroy();
    });
  }

  private onPdu(link: Link, pdu: smpp.PDU): void {
    // The library calls this from its socket reader and stops reading for good if a listener throws.
    link.lastHeardAt = performance.now();
    try {
      if (pdu.isResponse()) {
        link.settle(pdu);
        return;
      }
      switch (pdu.command) {
        case 'enquire_link':
          link.respond(pdu.response());
          return;
        case 'deliver_sm':
          this.options.onDeliverSm(link, pdu);
          return;
        case 'unbind':
          link.respond(pdu.response());
          link.lastError = 'unbound by the SMSC';
          // Taken out of service now rather than on 'close', so no new submit_sm goes to a link being torn down.
          this.onLinkClosed(link);
          link.session.close();
          setTimeout(() => link.session.destroy(), UNBIND_WAIT_MS).unref();
          return;
        default:
          link.respond(pdu.response({ command_status: ESME_RINVCMDID }));
      }
    } catch (e) {
      this.options.logger.warn(`SMPP ${this.where}: cannot handle ${pdu.command}: ${errorMessage(e)}`);
    }
  }

  private async shutdown(): Promise<void> {
    this.closedFlag = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.notifyWaiters('SMPP transport closed');
    const connecting = this.connecting;
    if (connecting) {
      connecting.failAll('SMPP transport closed');
      connecting.session.destroy();
    }
    const link = this.link;
    this.link = null;
    if (!link) return;
    void link.enquireTimer?.stop();
    link.enquireTimer = null;
    try {
      await link.request(new smpp.PDU('unbind'), UNBIND_WAIT_MS);
    } catch {
      // Closing goes ahead whatever the SMSC says.
    }
    link.failAll('SMPP transport closed');
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        link.session.destroy();
        resolve();
      }, UNBIND_WAIT_MS);
      link.session.close(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
