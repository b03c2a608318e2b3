import type { Channel } from '../messages/channel.js';
import type { RecipientCheck } from '../messages/recipients.js';
import type { FallbackSpec } from './fallback-input.js';

/**
 * A send request in channel-neutral terms, after the controller has mapped field names. The
 * channels' readers build it field by field, not by spreading (docs/performance.md#hidden-classes).
 */
export interface SendInput {
  sender: string;
  recipients: string[];
  body: string;
  subject?: string | null;
  replyTo?: string | null;
  source?: string | null;
  callbackUrl?: string | null;
  userReferenceId?: string | null;
  /** As sent; resolved by schedule.ts. */
  sendAt?: string | null;
  validityPeriod?: number | string | null;
  /** The request's own send window as given (replaces the account's); null or absent: the account's. */
  sendWindow?: unknown;
  /** high | normal; null: the key's default. */
  priority?: 'high' | 'normal' | null;
  /** A stored template that supplies the text (and an e-mail's subject when the send has none). */
  templateId?: string | null;
  /** Values for `{{name}}` placeholders, keyed by recipient as written in the request. */
  variables?: Record<string, Record<string, string>> | null;
  /** SMS only; null or absent: the account's default. */
  smartEncoding?: boolean | null;
  /** SMS and chat: each http(s) link of the text becomes a short link of its own per recipient. */
  shortenLinks?: boolean | null;
  /** Chat only: the SMS that follows a message not delivered in time. */
  fallback?: FallbackSpec | null;
  /** A fallback SMS: the chat message it stands in for (its refusals are stored, not thrown). */
  fallbackOf?: string | null;
  /** Only for the STOP confirmation: the one message still sent to a number it has just suppressed. */
  ignoreSuppressions?: boolean;
  /** A submit_sm over the SMPP server: the credential it came on and its registered_delivery & 0x03. */
  smpp?: { credentialId: number; registeredDelivery: number } | null;
  /**
   * Answered once stored and charged, without waiting for its dispatch jobs to reach Redis (those
   * that do not are queued by the recovery sweep): for a client that keeps a window of sends in
   * flight, whose rate is the window over the time each send takes to be answered (an SMPP submit).
   */
  answerOnceStored?: boolean;
}

/** One text's size as the channel counts and charges it. */
export interface TextMeasure {
  /** Units charged for one recipient of this text. */
  units: number;
  /** SMS parts; 1 on the other channels. */
  segments: number;
  /** 'GSM-7' or 'UCS-2' for SMS; null on the other channels. */
  encoding: 'GSM-7' | 'UCS-2' | null;
  /** Unicode code points of the body. */
  characters: number;
  /** Why the text cannot be sent (over the channel's limit), or null. */
  tooLong: string | null;
}

/**
 * What differs per channel, and nothing else: how a recipient is checked, what a message
 * costs in units, and the channel's own limits. The send pipeline is shared.
 */
export interface ChannelPolicy {
  readonly channel: Channel;
  /** The request field the recipients came in, for error details. */
  readonly recipientField: string;
  normaliseRecipient(raw: string): RecipientCheck;
  /** Throws AppException for channel limits (sender id, length, subject ...). */
  validate(input: SendInput): void;
  /** Units charged per accepted recipient. */
  unitsPerRecipient(input: SendInput): number;
  /** Measures one (rendered) text without throwing, for per-recipient pricing and the preview. */
  measure(body: string, subject?: string | null): TextMeasure;
}
