import type { MessageStatus } from '../../messages/channel.js';

/** The event types an endpoint may subscribe to (or `*`, every one). */
export const WEBHOOK_EVENT_TYPES = [
  'message.accepted',
  'message.scheduled',
  'message.sent',
  'message.delivered',
  'message.undelivered',
  'message.rejected',
  'message.expired',
  'message.failed',
  'message.cancelled',
  'inbound.received',
  'verification.approved',
  'verification.failed',
  'link.clicked',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Every type, present and future. */
export const ALL_EVENTS = '*';

/** The event `POST …/{id}/test` sends; no endpoint subscribes to it. */
export const TEST_EVENT = 'webhook.test';

/** The event type of a message reaching a state. */
export const MESSAGE_EVENT_OF: Record<MessageStatus, WebhookEventType> = {
  ACKNOWLEDGED: 'message.accepted',
  SCHEDULED: 'message.scheduled',
  SENT: 'message.sent',
  DELIVERED: 'message.delivered',
  UNDELIVERED: 'message.undelivered',
  REJECTED: 'message.rejected',
  EXPIRED: 'message.expired',
  FAILED: 'message.failed',
  CANCELLED: 'message.cancelled',
};

/** True when an endpoint's list of events (as stored, comma separated) takes this type. */
export function subscribes(events: string, type: string): boolean {
  return events.split(',').some((e) => e === ALL_EVENTS || e === type);
}
