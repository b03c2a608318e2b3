import type { Channel } from '../../messages/channel.js';

/** One message as a transport sees it: everything needed to hand it to a provider. */
export interface OutboundMessage {
  id: string;
  uuid: string;
  channel: Channel;
  recipient: string;
  sender: string;
  body: string;
  subject?: string | null;
  replyTo?: string | null;
  /** The send request's id (the API's api_reference). */
  apiReference?: string;
  /** The provider should drop the message if it cannot deliver it by then (SMPP validity_period). */
  validUntil?: Date | null;
  /** The account that sent it (routes may be the account's own). */
  accountId?: string;
  /** High-priority messages go before queued normal ones where a transport queues (SMPP). */
  priority?: 'high' | 'normal';
  /** Extra message headers (e-mail: List-Unsubscribe). */
  headers?: Record<string, string>;
}

/**
 * What became of one message handed to a provider:
 * - accepted: the provider took it (→ SENT), with its id for matching delivery reports;
 * - permanent: the provider refused it for good (→ REJECTED, refunded), never retried;
 * - transient: try again later (Bull retries with backoff; after the last attempt → FAILED, refunded).
 *   `configuration` marks a failure no retry can heal until the configuration or the provider's
 *   setup changes (TLS refused, credentials refused, unknown host): logged at error, named by
 *   the health check, retried on a long backoff.
 * `reason` is a short code (stored, counted in metrics); `detail` the provider's own words, for logs.
 */
export type TransportResult =
  | {
      kind: 'accepted';
      providerMessageId: string;
      /** One provider id per part when the provider split the message (SMPP); '' for a part whose id never came. */
      parts?: string[];
      /** Why the hand-over is not confirmed in the usual way (e.g. no submit_sm_resp ever came). */
      reason?: string;
      /** The SMSC link it went out on, where there are several (SMPP connectors). */
      connector?: string;
    }
  | {
      kind: 'permanent';
      reason: string;
      detail?: string;
      /** The mailbox itself was refused for good (SMTP 5.1.x): the address is suppressed, reason BOUNCE. */
      mailboxRefused?: boolean;
    }
  | { kind: 'transient'; reason: string; detail?: string; configuration?: boolean };

/** A delivery report from a provider, matched to a message by the provider's id. */
export interface DeliveryReport {
  providerMessageId: string;
  status: 'DELIVERED' | 'UNDELIVERED' | 'EXPIRED' | 'REJECTED';
  reason?: string | null;
  occurredAt: Date;
  /**
   * The SMPP connector whose bind delivered it: SMSCs number their messages independently, so a
   * receipt is matched only to messages sent over the same connector. Absent elsewhere.
   */
  connector?: string | null;
}

export type ReportHandler = (report: DeliveryReport) => Promise<void>;

/** A message from a handset (SMPP deliver_sm that is not a receipt), or one part of a concatenated one. */
export interface InboundSms {
  from: string;
  to: string;
  text: string;
  /** Set on a part of a concatenated message: its reference, how many parts, and which one (from 1). */
  concat?: { ref: number; total: number; seq: number };
  /**
   * A reply played by the test transport (a test key's recipient answering): it belongs to this
   * account's test side and reaches it without the account's inbound numbers.
   */
  test?: { accountId: string };
}

/** Resolves once the inbound message (or part) is stored; a rejection asks the provider to send it again. */
export type InboundHandler = (sms: InboundSms) => Promise<void>;

/** Where a worker hands the inbound messages its transports receive (provided by the inbound module). */
export interface InboundSink {
  receive: InboundHandler;
}
export const INBOUND_SINK = Symbol('INBOUND_SINK');

export interface TransportHealth {
  status: 'up' | 'down';
  message: string;
  response_time_ms: number;
}

/**
 * A provider strategy, one small class per provider. `send` gets a batch (a job's chunk) so
 * transports that pipeline (SMPP windowing, pooled SMTP) can keep many messages in flight;
 * it resolves one result per message, in order, and should not throw.
 */
export interface Transport {
  readonly name: string;
  /**
   * `onAccepted`, where the transport supports it (SMPP), is told the parts' provider ids of each
   * message the provider accepts as soon as it does, before the whole batch is answered.
   */
  send(messages: OutboundMessage[], onAccepted?: (providerIds: string[]) => void): Promise<TransportResult[]>;
  /** Registers where asynchronous delivery reports go (SMPP deliver_sm, sandbox). */
  onReport(handler: ReportHandler): void;
  /** Registers where inbound messages go (transports that receive them: SMPP). */
  onInbound?(handler: InboundHandler): void;
  health(): Promise<TransportHealth>;
  close(): Promise<void>;
}
