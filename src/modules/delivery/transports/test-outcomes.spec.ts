import { describe, expect, it } from 'vitest';
import { testOutcome } from './test-outcomes.js';

describe('testOutcome (the test keys recipient table)', () => {
  it.each([
    ['sms', '260971230000', { kind: 'undelivered', reason: 'TEST_UNDELIVERED' }],
    ['chat', '260971230000', { kind: 'undelivered', reason: 'TEST_UNDELIVERED' }],
    ['sms', '260971230002', { kind: 'rejected', reason: 'PROVIDER_REJECTED' }],
    ['chat', '260971230003', { kind: 'failed', reason: 'TEST_PROVIDER_ERROR' }],
    ['sms', '260971230004', { kind: 'delivered', reply: 'STOP' }],
    ['chat', '260971230004', { kind: 'delivered' }],
    ['sms', '260971234567', { kind: 'delivered' }],
    ['email', 'fail@example.com', { kind: 'undelivered', reason: 'TEST_UNDELIVERED' }],
    ['email', 'Reject@example.com', { kind: 'rejected', reason: 'PROVIDER_REJECTED' }],
    ['email', 'error@example.com', { kind: 'failed', reason: 'TEST_PROVIDER_ERROR' }],
    ['email', 'bounce@example.com', { kind: 'bounced', reason: 'BOUNCE' }],
    ['email', 'someone@example.com', { kind: 'delivered' }],
  ] as const)('decides %s to %s by the recipient', (channel, recipient, outcome) => {
    expect(testOutcome(channel, recipient)).toEqual(outcome);
  });

  it('reads an e-mail by its local part only: a domain named like a magic word does not count', () => {
    expect(testOutcome('email', 'ok@fail.example.com')).toEqual({ kind: 'delivered' });
    expect(testOutcome('email', 'x.fail@example.com')).toEqual({ kind: 'delivered' });
  });

  it('reads a number by its last four digits only', () => {
    expect(testOutcome('sms', '260970000021')).toEqual({ kind: 'delivered' });
    expect(testOutcome('sms', '260900020000')).toEqual({ kind: 'undelivered', reason: 'TEST_UNDELIVERED' });
  });
});
