import { describe, expect, it } from 'vitest';
import type { WebhookEnvelope } from './callback-job.js';
import { outboxRecipient } from './outbox-recipient.js';

const webhook = (envelope: object) =>
  outboxRecipient({ eventType: 'webhook', payload: envelope as WebhookEnvelope });

describe('outboxRecipient of a webhook envelope', () => {
  it("names a message event's recipient, an inbound event's sender and a verification's number", () => {
    expect(webhook({ type: 'message.sent', data: { recipient: '260971000001' } })).toBe('260971000001');
    expect(webhook({ type: 'inbound.received', data: { from: '260971000002', to: '260970000000' } })).toBe(
      '260971000002',
    );
    expect(webhook({ type: 'verification.approved', data: { to: '260971000003' } })).toBe('260971000003');
  });

  it('names no one for an envelope without a type or data, and does not throw', () => {
    expect(webhook({})).toBe('');
    expect(webhook({ data: { recipient: '260971000004' } })).toBe('260971000004');
    expect(webhook({ type: 'link.clicked', data: { link_id: 'x' } })).toBe('');
  });
});
