import { keyedDigest } from '../../platform/crypto/keyed-digest.js';
import type {
  CallbackJob,
  InboundEventPayload,
  MessageEventPayload,
  WebhookEnvelope,
} from './callback-job.js';

/**
 * The recipient a kept event names, as a send stores it: a message event's recipient, an inbound
 * event's sender (for a webhook event, as its data names them).
 */
export function outboxRecipient(job: Pick<CallbackJob, 'eventType' | 'payload'>): string {
  if (job.eventType === 'webhook') {
    // A message event's data names its recipient, an inbound one's its sender; other events neither.
    const data = (job.payload as WebhookEnvelope).data as { recipient?: unknown; from?: unknown } | undefined;
    return String(data?.recipient ?? data?.from ?? '');
  }
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
