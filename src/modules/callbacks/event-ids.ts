import { createHash } from 'node:crypto';
import type { MessageStatus } from '../messages/channel.js';

/**
 * A UUID named by `name` (the layout of RFC 9562's version 8, from SHA-256): the same name gives
 * the same id in every process, so an event derived twice (kept live, then again by the recovery
 * sweep) is the same event to the tables that key it and to a receiver that deduplicates by it.
 */
export function namedUuid(name: string): string {
  const b = createHash('sha256').update(name).digest().subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x80;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The event_id of a message's message.* webhook event for reaching `status`: a message reaches
 * each state at most once (lifecycle/transitions.ts), so the pair names one change.
 */
export const messageEventId = (messageId: string, status: MessageStatus): string =>
  namedUuid(`webhook-event:${messageId}:${status}`);

/** The id of an event's copy for one endpoint (its delivery log row, outbox row and queue job). */
export const deliveryIdOf = (eventId: string, webhookId: string): string =>
  namedUuid(`webhook-copy:${eventId}:${webhookId}`);

/** The id of the job (and outbox row) that carries an event's copies for several endpoints. */
export const copiesIdOf = (eventId: string): string => namedUuid(`webhook-copies:${eventId}`);
