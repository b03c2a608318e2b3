import { keyedDigest } from '../../platform/crypto/keyed-digest.js';
import type {
  CallbackJob,
  InboundEventPayload,
  MessageEventPayload,
  WebhookEnvelope,
} from './callback-job.js';

/**
 * The recipient a kept event names, as a send stores it: a message event's recipient, an inbound
 * event's sender, a verification event's number or address (for a webhook event, as its data
 * names them).
 */
export function outboxRecipient(job: Pick<CallbackJob, 'eventType' | 'payload'>): string {
  if (job.eventType === 'webhook') {
    // A message event's data names its recipient, an inbound one's its sender, a verification
    // one's `to` (an inbound event's `to` is the account's own number); other events none.
    const envelope = job.payload as WebhookEnvelope;
    const data = envelope.data as { recipient?: unknown; from?: unknown; to?: unknown } | undefined;
    if (String(envelope.type ?? '').startsWith('verification.')) return String(data?.to ?? '');
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
