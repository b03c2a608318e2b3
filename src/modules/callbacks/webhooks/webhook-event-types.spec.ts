import { describe, expect, it } from 'vitest';
import { MESSAGE_STATUSES } from '../../messages/channel.js';
import { MESSAGE_EVENT_OF, subscribes, WEBHOOK_EVENT_TYPES } from './webhook-event-types.js';

describe('webhook event types', () => {
  it('takes a type named in the list, or every type with *', () => {
    expect(subscribes('message.delivered,inbound.received', 'inbound.received')).toBe(true);
    expect(subscribes('message.delivered', 'message.sent')).toBe(false);
    expect(subscribes('*', 'link.clicked')).toBe(true);
    // A type is matched whole, never as a prefix of another.
    expect(subscribes('message.sent', 'message.sentinel')).toBe(false);
  });

  it('names a subscribable event type for every message state', () => {
    for (const status of MESSAGE_STATUSES) expect(WEBHOOK_EVENT_TYPES).toContain(MESSAGE_EVENT_OF[status]);
  });
});
