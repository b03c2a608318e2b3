import type { Channel } from '../../messages/channel.js';

/**
 * What becomes of a message sent with a test key, decided by its recipient (the table of
 * docs/api/test-keys.md). Nothing is handed to a provider: the test transport plays the provider's
 * part, through the same states, reports and callbacks as a live message.
 */
export type TestOutcome =
  /** Handed over, then reported delivered; with `reply`, the recipient then answers with that text. */
  | { kind: 'delivered'; reply?: string }
  /** Handed over, then reported undelivered. */
  | { kind: 'undelivered'; reason: string }
  /** Refused at hand-over, for good. */
  | { kind: 'rejected'; reason: string }
  /** Every hand-over attempt fails, so the message ends FAILED after the retries. */
  | { kind: 'failed'; reason: string }
  /** The mailbox is refused for good at hand-over, as an MTA's 5.1.x answer: REJECTED and suppressed. */
  | { kind: 'bounced'; reason: string };

export const TEST_UNDELIVERED = 'TEST_UNDELIVERED';
export const TEST_PROVIDER_REJECTED = 'PROVIDER_REJECTED';
export const TEST_PROVIDER_ERROR = 'TEST_PROVIDER_ERROR';
export const TEST_BOUNCE = 'BOUNCE';

const BY_NUMBER_ENDING: Record<string, TestOutcome> = {
  '0000': { kind: 'undelivered', reason: TEST_UNDELIVERED },
  '0002': { kind: 'rejected', reason: TEST_PROVIDER_REJECTED },
  '0003': { kind: 'failed', reason: TEST_PROVIDER_ERROR },
};

/** SMS only: a chat recipient cannot text back. */
const SMS_BY_NUMBER_ENDING: Record<string, TestOutcome> = {
  '0004': { kind: 'delivered', reply: 'STOP' },
};

const BY_LOCAL_PART: Record<string, TestOutcome> = {
  fail: { kind: 'undelivered', reason: TEST_UNDELIVERED },
  reject: { kind: 'rejected', reason: TEST_PROVIDER_REJECTED },
  error: { kind: 'failed', reason: TEST_PROVIDER_ERROR },
  bounce: { kind: 'bounced', reason: TEST_BOUNCE },
};

/** Recipients are stored normalised (digits only; e-mail domain lower-cased), as matched here. */
export function testOutcome(channel: Channel, recipient: string): TestOutcome {
  if (channel === 'email') {
    const at = recipient.lastIndexOf('@');
    const local = at > 0 ? recipient.slice(0, at).toLowerCase() : '';
    return BY_LOCAL_PART[local] ?? { kind: 'delivered' };
  }
  const ending = recipient.slice(-4);
  return (
    (channel === 'sms' ? SMS_BY_NUMBER_ENDING[ending] : undefined) ??
    BY_NUMBER_ENDING[ending] ?? { kind: 'delivered' }
  );
}
