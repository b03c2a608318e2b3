import type { Channel } from '../messages/channel.js';
import type { RecipientCheck } from '../messages/recipients.js';

/** A send request in channel-neutral terms, after the controller has mapped field names. */
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
  /** high | normal; null: the key's default. */
  priority?: 'high' | 'normal' | null;
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
}
