import { performance } from 'node:perf_hooks';
import smpp from 'smpp';
import { SmppConnection, type SmppLogger } from './smpp-connection.js';
import { errorMessage, LateNotes, sleep, Window, type Reply } from './smpp-link.js';
import { Pacer } from '../../../platform/timing/pacer.js';
import {
  buildSubmitSm,
  ESME_RMSGQFUL,
  ESME_ROK,
  ESME_RTHROTTLED,
  parseSmppUrl,
  smppStatusCode,
  type SmppEndpoint,
} from './smpp-pdu.js';
import { SmppReceiver } from './smpp-receiver.js';

// The pure parts are importable from the transport, as before.
export { buildSubmitSm, parseSmppUrl, smppStatusCode, type SmppEndpoint } from './smpp-pdu.js';
export type { SmppLogger } from './smpp-connection.js';
import type {
  InboundHandler,
  OutboundMessage,
  ReportHandler,
  Transport,
  TransportHealth,
  TransportResult,
} from '../transports/transport.js';

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
  /**
   * After responseTimeoutMs, how much longer a submit_sm_resp is waited for before the message is recorded SENT
   * without a provider id (default 300000; 0 = resend after responseTimeoutMs, at the risk of duplicates).
   */
  lateResponseWaitMs?: number;
  enquireLinkIntervalMs?: number;
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
  /** Retries of one PDU answered ESME_RTHROTTLED / ESME_RMSGQFUL within one send call (default 4; Infinity: until closed). */
  throttleRetries?: number;
  /** Longest wait between two throttled retries (default unbounded doubling). */
  throttleBackoffMaxMs?: number;
  /** transceiver (default) or transmitter (no receipts). */
  bindMode?: 'transceiver' | 'transmitter';
  /** Paces submit_sm instead of the local `tps` pacer (a connector's bucket shared by all workers). */
  throughput?: Throughput;
  /** Told of every submit_sm answered ESME_RTHROTTLED / ESME_RMSGQFUL, and of every part accepted. */
  onThrottled?: () => void;
  onSubmitted?: () => void;
  /** First wait after a throttle answer, doubling per retry (default 100). */
  throttleBackoffMs?: number;
  logger?: SmppLogger;
  /** The connector this bind is: put on every receipt it delivers, so receipts are matched within it. */
  connector?: string;
}

/** A shared pace for submit_sm: resolves when this one may go; `high` ones go before waiting normal ones. */
export interface Throughput {
  take(high: boolean): Promise<void> | null;
}

const HEALTH_BUDGET_MS = 750;

type PartOutcome =
  | { kind: 'ok'; messageId: string }
  | { kind: 'permanent' | 'transient'; reason: string }
  /** Written on a live link and never answered, even late: the SMSC may well have it. */
  | { kind: 'unanswered'; reason: string };

/** Slots of a window of `size` that only high-priority submits may take: one in 50, none below 10. */
export function highPriorityReserve(size: number): number {
  return size >= 10 ? Math.ceil(size / 50) : 0;
}

/** The reason a message is recorded SENT with when a part's submit_sm was never answered. */
export const SMPP_NO_RESPONSE = 'SMPP_NO_RESPONSE';

/**
 * SMS over SMPP 3.4 as a transceiver. One connection per transport instance, opened on first use and kept:
 * reconnects with backoff after a failed bind or a drop, enquire_link every 30 s. Sends are windowed (many
 * submit_sm outstanding) and paced to `tps`.
 *
 * Multipart messages: every part gets its own message_id and SMSCs send one receipt per part. The result
 * carries every part's id (`parts`), so each part's receipt is matched and the message's state follows all of them.
 */
export class SmppTransport implements Transport {
  readonly name = 'smpp';

  private readonly endpoint: SmppEndpoint;
  private readonly where: string;
  private readonly conn: SmppConnection;
  private readonly connectTimeoutMs: number;
  private readonly reconnectMaxMs: number;
  private readonly window: Window;
  private readonly pacer: Throughput;
  private readonly responseTimeoutMs: number;
  private readonly lateResponseWaitMs: number;
  private readonly lateResponses: LateNotes;
  private readonly throttleRetries: number;
  private readonly throttleBackoffMs: number;
  private readonly throttleBackoffMaxMs: number;
  private readonly onThrottled: () => void;
  private readonly onSubmitted: () => void;
  private readonly logger: SmppLogger;
  private readonly receiver: SmppReceiver;
  // Random start so two processes restarting together do not reuse the same references for the same handset.
  private ref = Math.floor(Math.random() * 256);

  constructor(options: SmppTransportOptions) {
    this.endpoint = parseSmppUrl(options.url);
    this.where = `${this.endpoint.host}:${this.endpoint.port}`;
    const window = Math.max(1, options.window ?? 100);
    this.window = new Window(window, highPriorityReserve(window));
    const pacer = new Pacer(Math.max(0, options.tps ?? 0));
    this.pacer = options.throughput ?? { take: () => pacer.take() };
    this.connectTimeoutMs = options.connectTimeoutMs ?? 5000;
    this.responseTimeoutMs = options.responseTimeoutMs ?? 10_000;
    this.lateResponseWaitMs = options.lateResponseWaitMs ?? 300_000;
    this.reconnectMaxMs = options.reconnectMaxMs ?? 10_000;
    this.throttleRetries = options.throttleRetries ?? 4;
    this.throttleBackoffMs = options.throttleBackoffMs ?? 100;
    this.throttleBackoffMaxMs = options.throttleBackoffMaxMs ?? Infinity;
    this.onThrottled = options.onThrottled ?? (() => undefined);
    this.onSubmitted = options.onSubmitted ?? (() => undefined);
    this.logger = options.logger ?? { warn: () => undefined, log: () => undefined };
    this.receiver = new SmppReceiver(this.where, options.connector ?? null, this.logger);
    this.lateResponses = new LateNotes((n) =>
      this.logger.warn(
        `SMPP ${this.where}: ${n} submit_sm unanswered after ${this.responseTimeoutMs} ms; waiting up to ${this.lateResponseWaitMs} ms more, not resending`,
      ),
    );
    this.conn = new SmppConnection({
      endpoint: this.endpoint,
      systemType: options.systemType,
      bindMode: options.bindMode,
      connectTimeoutMs: this.connectTimeoutMs,
      responseTimeoutMs: this.responseTimeoutMs,
      enquireLinkIntervalMs: options.enquireLinkIntervalMs ?? 30_000,
      reconnectMinMs: options.reconnectMinMs ?? 250,
      reconnectMaxMs: this.reconnectMaxMs,
      logger: this.logger,
      onDeliverSm: (link, pdu) => void this.receiver.handle(link, pdu),
    });
  }

  get bound(): boolean {
    return this.conn.link !== null;
  }

  /** Why the bind is down right now (a refused bind, a lost connection); null while bound. */
  get bindError(): string | null {
    return this.conn.lastError;
  }

  /** submit_sm awaiting their response, and waiting for a window slot. */
  get load(): { inFlight: number; queued: number } {
    return { inFlight: this.window.inUse, queued: this.window.queued };
  }

  onReport(handler: ReportHandler): void {
    this.receiver.onReport(handler);
  }

  /** Binds at once (not at the first send): inbound messages come whether or not anything is sent. */
  onInbound(handler: InboundHandler): void {
    this.receiver.onInbound(handler);
    void this.conn.waitBound(0);
  }

  /** Resolves once bound; rejects with the reason when the next bind attempt fails (retrying goes on). */
  async connect(): Promise<void> {
    // Long enough to cover the longest backoff plus one attempt, so the answer is always that attempt's.
    const error = await this.conn.waitBound(this.reconnectMaxMs + this.connectTimeoutMs);
    if (error) throw new Error(error);
  }

  async send(
    messages: OutboundMessage[],
    onAccepted?: (providerIds: string[]) => void,
  ): Promise<TransportResult[]> {
    if (messages.length === 0) return [];
    try {
      const error = this.conn.closed
        ? 'SMPP transport closed'
        : await this.conn.waitBound(this.connectTimeoutMs);
      if (error) return messages.map(() => ({ kind: 'transient', reason: error }));
      return await Promise.all(
        messages.map(async (message) => {
          const result = await this.sendOne(message);
          if (result.kind === 'accepted') onAccepted?.(result.parts ?? [result.providerMessageId]);
          return result;
        }),
      );
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
      if (this.conn.closed) return down('SMPP transport closed');
      // A probe may be the first user; an attempt already under way is worth waiting for, a backoff is not.
      if (!this.conn.link && this.conn.attemptPending) await this.conn.waitBound(HEALTH_BUDGET_MS);
      const link = this.conn.link;
      if (!link) {
        return down(
          `SMPP not bound to ${this.where} as ${this.endpoint.systemId}: ${this.conn.lastError ?? 'connecting'}`,
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
    return this.conn.close();
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
    const high = message.priority === 'high';
    const outcomes = await Promise.all(parts.map((part) => this.submit(part, high)));
    let transient: string | null = null;
    let unanswered = false;
    for (let i = 0; i < outcomes.length; i++) {
      const outcome = outcomes[i];
      if (outcome.kind === 'ok') continue;
      const reason = parts.length > 1 ? `${outcome.reason} (part ${i + 1}/${parts.length})` : outcome.reason;
      // A refused part makes the whole message unusable; retrying would not change the answer.
      if (outcome.kind === 'permanent') return { kind: 'permanent', reason };
      if (outcome.kind === 'unanswered') {
        unanswered = true;
        this.logger.warn(
          `SMPP ${this.where}: message ${message.id} recorded SENT without a provider id: ${reason}; not resent`,
        );
      } else transient ??= reason;
    }
    if (transient) return { kind: 'transient', reason: transient };
    const ids = outcomes.map((o) => (o.kind === 'ok' ? o.messageId : ''));
    return {
      kind: 'accepted',
      providerMessageId: ids[ids.length - 1],
      parts: ids,
      ...(unanswered ? { reason: SMPP_NO_RESPONSE } : {}),
    };
  }

  private async submit(params: smpp.PduParams, high = false): Promise<PartOutcome> {
    for (let attempt = 0; ; attempt++) {
      let reply: Reply;
      await this.window.acquire(high);
      try {
        await this.pacer.take(high);
        const link = this.conn.link;
        if (!link)
          return { kind: 'transient', reason: `SMPP not bound: ${this.conn.lastError ?? 'connection lost'}` };
        // A fresh PDU per attempt, with a sequence number of its own.
        // A slow SMSC is waited for, not resent to: a second submit_sm would be a second SMS on the handset.
        reply = await link.request(new smpp.PDU('submit_sm', params), this.responseTimeoutMs, {
          waitMs: this.lateResponseWaitMs,
          onLate: () => this.lateResponses.note(),
        });
      } finally {
        this.window.release();
      }
      if (!reply.ok) {
        if (reply.encode) return { kind: 'permanent', reason: `SMPP_ENCODE: ${reply.reason}` };
        return reply.late
          ? { kind: 'unanswered', reason: `${SMPP_NO_RESPONSE}: ${reply.reason}` }
          : { kind: 'transient', reason: `SMPP ${reply.reason}` };
      }
      const status = reply.pdu.command_status;
      if (status === ESME_ROK) {
        this.onSubmitted();
        const messageId = reply.pdu.message_id ?? '';
        if (!messageId) this.logger.warn(`SMPP ${this.where} accepted a submit_sm without a message_id`);
        return { kind: 'ok', messageId };
      }
      if (status === ESME_RTHROTTLED || status === ESME_RMSGQFUL) {
        this.onThrottled();
        if (attempt < this.throttleRetries && !this.conn.closed) {
          // Jitter spreads the retries of a whole window that was throttled at once.
          const wait = Math.min(
            this.throttleBackoffMaxMs,
            this.throttleBackoffMs * 2 ** Math.min(attempt, 20),
          );
          await sleep(wait * (0.5 + Math.random() / 2));
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
}
