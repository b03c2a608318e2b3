import { keyedDigest } from '../../platform/crypto/keyed-digest.js';
import type { CallbackJob, InboundEventPayload, MessageEventPayload } from './callback-job.js';

/**
 * The recipient a kept event names, as a send stores it: a message event's recipient, an inbound
 * event's sender.
 */
export function outboxRecipient(job: Pick<CallbackJob, 'eventType' | 'payload'>): string {
  return job.eventType === 'inbound'
    ? (job.payload as InboundEventPayload).from
    : (job.payload as MessageEventPayload).recipient;
}

/**
 * The outbox's index of who an event is about (`callback_outbox.recipient_hash`), so an erasure
 * finds a recipient's events without reading the outbox. Keyed (SERVER_SECRET), so the column
 * cannot be turned back into phone numbers by hashing every number.
 */
export function recipientHash(secret: string, recipient: string): Buffer {
  return keyedDigest(secret, 'outbox-recipient', recipient);
}
