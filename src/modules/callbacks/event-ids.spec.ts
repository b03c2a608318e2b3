import { describe, expect, it } from 'vitest';
import { deliveryIdOf, messageEventId, namedUuid } from './event-ids.js';

describe('event ids', () => {
  it('names the same change with the same UUID and different changes with different ones', () => {
    expect(messageEventId('17', 'DELIVERED')).toBe(messageEventId('17', 'DELIVERED'));
    expect(messageEventId('17', 'DELIVERED')).not.toBe(messageEventId('17', 'SENT'));
    expect(messageEventId('17', 'SENT')).not.toBe(messageEventId('171', 'SENT'));
    const event = messageEventId('17', 'SENT');
    expect(deliveryIdOf(event, 'a')).toBe(deliveryIdOf(event, 'a'));
    expect(deliveryIdOf(event, 'a')).not.toBe(deliveryIdOf(event, 'b'));
  });

  it('gives a UUID of version 8 and the RFC variant, 36 characters as the id columns hold', () => {
    expect(namedUuid('x')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
