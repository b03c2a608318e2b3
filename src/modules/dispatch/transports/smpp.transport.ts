import { performance } from 'node:perf_hooks';
import smpp from 'smpp';
import { errorMessage, Link, Pacer, sleep, Window, type Reply } from './smpp-link.js';
import {
  buildSubmitSm,
  describeStatus,
  ESM_CLASS_RECEIPT,
  ESME_RINVCMDID,
  ESME_RMSGQFUL,
  ESME_ROK,
  ESME_RTHROTTLED,
  parseSmppUrl,
  receiptText,
  smppStatusCode,
  type SmppEndpoint,
} from './smpp-pdu.js';
import { parseDeliveryReceipt } from './smpp-receipt.js';

// The pure parts are importable from the transport, as before.
export { buildSubmitSm, parseSmppUrl, smppStatusCode, type SmppEndpoint } from './smpp-pdu.js';
import type {
  DeliveryReport,
  OutboundMessage,
  ReportHandler,
  Transport,
  TransportHealth,
  TransportResult,
} from './transport.js';

export interface SmppLogger {
  warn(msg: string): void;
  log(msg: string): void;
}

export interface SmppTransportOptions {
  /** smpp://system_id:password@host:port (port defaults to 2775). */
  url: string;
  /** Most submit_sm per second; 0 = unlimited. */
  tps: number;
  /** Most submit_sm awaiting their response at once (default 100). */
  window?: number;
  systemType?: string;
  /** TCP connect plus bind (default 5000). */
  connectTimeoutMs?: number;
  /** Wait for a submit_sm_resp / enquire_link_resp (default 10000). */
  responseTimeoutMs?: number;
  enquireLinkIntervalMs?: number;
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
  /** Retries of one PDU answered ESME_RTHROTTLED / ESME_RMSGQFUL within one send call (default 4). */
  throttleRetries?: number;
  /** First wait after a throttle answer, doubling per retry (default 100). */
  throttleBackoffMs?: number;
  logger?: SmppLogger;
}

const HEALTH_BUDGET_MS = 750;
const UNBIND_WAIT_MS = 1000;
// An SMSC waits for deliver_sm_resp; a stuck report handler must not make it resend forever.
const REPORT_HANDLER_WAIT_MS = 5000;

type PartOutcome = { kind: 'ok'; messageId: string } | { kind: 'permanent' | 'transient'; reason: string };

interface BoundWaiter {
  resolve: (error: string | null) => void;
}

/**
 * SMS over SMPP 3.4 as a transceiver. One connection per transport instance, opened on first use and kept:
 * reconnects with backoff after a failed bind or a drop, enquire_link every 30 s. Sends are windowed (many
 * submit_sm outstanding) and paced to `tps`.
 *
 * Multipart messages: every part gets its own message_id and SMSCs send one receipt per part. The result
 * carries the id of the last segment (sequence = total), so its receipt is the one that moves the message;
 * receipts for the other parts match nothing and are dropped by the caller.
 */
export class SmppTransport implements Transport {
  readonly name = 'smpp';

  private readonly endpoint: SmppEndpoint;
  private readonly where: string;
  private readonly window: Window;
  private readonly pacer: Pacer;
  private readonly connectTimeoutMs: number;
  private readonly responseTimeoutMs: number;
  private readonly enquireLinkIntervalMs: number;
  private readonly reconnectMinMs: number;
  private readonly reconnectMaxMs: number;
  private readonly throttleRetries: number;
  private readonly throttleBackoffMs: number;
  private readonly logger: SmppLogger;

  private link: Link | null = null;
  private connecting: Link | null = null;
  private started = false;
  private closed = false;
  private closing: Promise<void> | null = null;
  private lastError: string | null = null;
  private backoffMs: number;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private nextAttemptAt = 0;
  private waiters = new Set<BoundWaiter>();
  private reportHandler: ReportHandler | null = null;
  // Random start so two processes restarting together do not reuse the same references for the same handset.
  private ref = Math.floor(Math.random() * 256);

  constructor(private readonly options: SmppTransportOptions) {
    this.endpoint = parseSmppUrl(options.url);
    this.where = `${this.endpoint.host}:${this.endpoint.port}`;
    this.window = new Window(Math.max(1, options.window ?? 100));
    this.pacer = new Pacer(Math.max(0, options.tps ?? 0));
    this.connectTimeoutMs = options.connectTimeoutMs ?? 5000;
    this.responseTimeoutMs = options.responseTimeoutMs ?? 10_000;
    this.enquireLinkIntervalMs = options.enquireLinkIntervalMs ?? 30_000;
    this.reconnectMinMs = options.reconnectMinMs ?? 250;
    this.reconnectMaxMs = options.reconnectMaxMs ?? 10_000;
    this.throttleRetries = options.throttleRetries ?? 4;
    this.throttleBackoffMs = options.throttleBackoffMs ?? 100;
    this.logger = options.logger ?? { warn: () => undefined, log: () => undefined };
    this.backoffMs = this.reconnectMinMs;
  }

  get bound(): boolean {
    return this.link !== null;
  }

  onReport(handler: ReportHandler): void {
    this.reportHandler = handler;
  }

  /** Resolves once bound; rejects with the reason when the next bind attempt fails (retrying goes on). */
  async connect(): Promise<void> {
    // Long enough to cover the longest backoff plus one attempt, so the answer is always that attempt's.
    const error = await this.waitBound(this.reconnectMaxMs + this.connectTimeoutMs);
    if (error) throw new Error(error);
  }

  async send(messages: OutboundMessage[]): Promise<TransportResult[]> {
    if (messages.length === 0) return [];
    try {
      const error = this.closed ? 'SMPP transport closed' : await this.waitBound(this.connectTimeoutMs);
      if (error) return messages.map(() => ({ kind: 'transient', reason: error }));
      return await Promise.all(messages.map((message) => this.sendOne(message)));
    } catch (e) {
      return messages.map(() => ({ kind: 'transient', reason: `SMPP send failed: ${errorMessage(e)}` }));
    }
  }

  async health(): Promise<TransportHealth> {
    const start = performance.now();
    const elapsed = () => performance.now() - start;
    const down = (message: string): TransportHealth => ({
      status: 'down',
      message,
      response_time_ms: Math.round(elapsed()),
    });
    try {
      if (this.closed) return down('SMPP transport closed');
      // A probe may be the first user; an attempt already under way is worth waiting for, a backoff is not.
      if (!this.link && (!this.started || this.connecting)) await this.waitBound(HEALTH_BUDGET_MS);
      const link = this.link;
      if (!link) {
        return down(
          `SMPP not bound to ${this.where} as ${this.endpoint.systemId}: ${this.lastError ?? 'connecting'}`,
        );
      }
      const t0 = performance.now();
      const reply = await link.request(
        new smpp.PDU('enquire_link'),
        Math.max(50, HEALTH_BUDGET_MS - elapsed()),
      );
      if (!reply.ok) return down(`SMPP enquire_link to ${this.where} failed: ${reply.reason}`);
      return {
        status: 'up',
        message: `SMPP bound to ${this.where} as ${this.endpoint.systemId}`,
        response_time_ms: Math.round(performance.now() - t0),
      };
    } catch (e) {
      return down(`SMPP health check failed: ${errorMessage(e)}`);
    }
  }

  close(): Promise<void> {
    if (!this.closing) this.closing = this.shutdown();
    return this.closing;
  }

  // ---- sending -------------------------------------------------------------------------------------------

  private async sendOne(message: OutboundMessage): Promise<TransportResult> {
    let parts: smpp.PduParams[];
    try {
      parts = buildSubmitSm(message, this.ref);
      if (parts.length > 1) this.ref = (this.ref + 1) & 0xff;
    } catch (e) {
      return { kind: 'permanent', reason: `SMPP_ENCODE: ${errorMessage(e)}` };
    }
    const outcomes = await Promise.all(parts.map((part) => this.submit(part)));
    let transient: string | null = null;
    for (let i = 0; i < outcomes.length; i++) {
      const outcome = outcomes[i];
      if (outcome.kind === 'ok') continue;
      const reason = parts.length > 1 ? `${outcome.reason} (part ${i + 1}/${parts.length})` : outcome.reason;
      // A refused part makes the whole message unusable; retrying would not change the answer.
      if (outcome.kind === 'permanent') return { kind: 'permanent', reason };
      transient ??= reason;
    }
    if (transient) return { kind: 'transient', reason: transient };
    const last = outcomes[outcomes.length - 1] as { kind: 'ok'; messageId: string };
    return { kind: 'accepted', providerMessageId: last.messageId };
  }

  private async submit(params: smpp.PduParams): Promise<PartOutcome> {
    for (let attempt = 0; ; attempt++) {
      let reply: Reply;
      await this.window.acquire();
      try {
        await this.pacer.take();
        const link = this.link;
        if (!link)
          return { kind: 'transient', reason: `SMPP not bound: ${this.lastError ?? 'connection lost'}` };
        // A fresh PDU per attempt: the library encodes short_message in place when writing.
        reply = await link.request(new smpp.PDU('submit_sm', params), this.responseTimeoutMs);
      } finally {
        this.window.release();
      }
      if (!reply.ok) {
        return reply.encode
          ? { kind: 'permanent', reason: `SMPP_ENCODE: ${reply.reason}` }
          : { kind: 'transient', reason: `SMPP ${reply.reason}` };
      }
      const status = reply.pdu.command_status;
      if (status === ESME_ROK) {
        const messageId = reply.pdu.message_id ?? '';
        if (!messageId) this.logger.warn(`SMPP ${this.where} accepted a submit_sm without a message_id`);
        return { kind: 'ok', messageId };
      }
      if (status === ESME_RTHROTTLED || status === ESME_RMSGQFUL) {
        if (attempt < this.throttleRetries && !this.closed) {
          // Jitter spreads the retries of a whole window that was throttled at once.
          await sleep(this.throttleBackoffMs * 2 ** attempt * (0.5 + Math.random() / 2));
          continue;
        }
        return {
          kind: 'transient',
          reason: `${smppStatusCode(status)} still throttled after ${attempt} retries`,
        };
      }
      return { kind: 'permanent', reason: smppStatusCode(status) };
    }
  }

  // ---- connection ----------------------------------------------------------------------------------------

  /** null once bound, else why not. Waits for the attempt under way or the next scheduled one, within `timeoutMs`. */
  private waitBound(timeoutMs: number): Promise<string | null> {
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

  private notBound(): string {
    return `SMPP not bound to ${this.where}: ${this.lastError ?? 'connecting'}`;
  }

  private notifyWaiters(error: string | null): void {
    for (const waiter of [...this.waiters]) waiter.resolve(error);
  }

  private attempt(): void {
    this.reconnectTimer = null;
    if (this.closed) return;
    const { host, port, systemId, password } = this.endpoint;
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
      this.logger.warn(`SMPP ${this.where}: ${reason}`);
      this.notifyWaiters(this.notBound());
      this.scheduleReconnect();
    };
    const timer = setTimeout(
      () => fail(`connect/bind timed out after ${this.connectTimeoutMs} ms`),
      this.connectTimeoutMs,
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
      const bind = new smpp.PDU('bind_transceiver', {
        system_id: systemId,
        password,
        system_type: this.options.systemType ?? '',
      });
      void link.request(bind, this.connectTimeoutMs).then((reply) => {
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
        this.backoffMs = this.reconnectMinMs;
        this.startEnquireLink(link);
        this.logger.log(`SMPP bound to ${this.where} as ${systemId}`);
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
    this.logger.warn(`SMPP ${this.where}: ${reason}; reconnecting`);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    // "Equal jitter": at least half the backoff, so a flapping SMSC still gets breathing room.
    const delay = this.backoffMs / 2 + (Math.random() * this.backoffMs) / 2;
    this.backoffMs = Math.min(this.backoffMs * 2, this.reconnectMaxMs);
    this.nextAttemptAt = Date.now() + delay;
    this.reconnectTimer = setTimeout(() => this.attempt(), delay);
  }

  private startEnquireLink(link: Link): void {
    link.enquireTimer = setInterval(() => {
      void link.request(new smpp.PDU('enquire_link'), this.responseTimeoutMs).then((reply) => {
        if (reply.ok || link.dead) return;
        // No answer means the link is gone even if TCP has not noticed; reconnecting is the only way back.
        link.lastError = `enquire_link unanswered: ${reply.reason}`;
        link.session.destroy();
      });
    }, this.enquireLinkIntervalMs);
    link.enquireTimer.unref();
  }

  private onPdu(link: Link, pdu: smpp.PDU): void {
    // The library calls this from its socket reader and stops reading for good if a listener throws.
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
          void this.onDeliverSm(link, pdu);
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
      this.logger.warn(`SMPP ${this.where}: cannot handle ${pdu.command}: ${errorMessage(e)}`);
    }
  }

  private async onDeliverSm(link: Link, pdu: smpp.PDU): Promise<void> {
    try {
      // Anything that is not a delivery receipt is an MO message, which this service does not take.
      if (((pdu.esm_class ?? 0) & ESM_CLASS_RECEIPT) === 0) return;
      const parsed = parseDeliveryReceipt({
        text: receiptText(pdu),
        receiptedMessageId: pdu.receipted_message_id,
        messageState: pdu.message_state,
      });
      if (parsed.kind === 'invalid') {
        this.logger.warn(`SMPP ${this.where}: ignoring receipt: ${parsed.reason}`);
        return;
      }
      if (parsed.kind === 'pending') return;
      await this.deliverReport(parsed.report);
    } catch (e) {
      this.logger.warn(`SMPP ${this.where}: receipt handling failed: ${errorMessage(e)}`);
    } finally {
      // Always acknowledged: a negative answer makes the SMSC resend a receipt we cannot handle any better later.
      link.respond(pdu.response());
    }
  }

  private async deliverReport(report: DeliveryReport): Promise<void> {
    const handler = this.reportHandler;
    if (!handler) {
      this.logger.warn(`SMPP receipt for ${report.providerMessageId} dropped: no report handler registered`);
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), REPORT_HANDLER_WAIT_MS);
    });
    try {
      const outcome = await Promise.race([handler(report), timeout]);
      if (outcome === 'timeout') {
        this.logger.warn(
          `SMPP report handler still busy with ${report.providerMessageId} after ${REPORT_HANDLER_WAIT_MS} ms`,
        );
      }
    } finally {
      clearTimeout(timer);
    }
  }

  private async shutdown(): Promise<void> {
    this.closed = true;
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
    if (link.enquireTimer) clearInterval(link.enquireTimer);
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

