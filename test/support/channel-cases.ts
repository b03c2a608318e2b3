import { randomInt } from 'node:crypto';
import type { AuthContext } from '../../src/modules/api-keys/auth/auth-context.js';
import type { Channel } from '../../src/modules/messages/channel.js';
import type { ChannelPolicy, SendInput } from '../../src/modules/sending/channel-policy.js';
import { ChatPolicy } from '../../src/modules/sending/channels/chat/chat.policy.js';
import { EmailPolicy } from '../../src/modules/sending/channels/email/email.policy.js';
import { SmsPolicy } from '../../src/modules/sending/channels/sms/sms.policy.js';
import type { SendService } from '../../src/modules/sending/send.service.js';
import { authOf, createTenant, type HasServices, type Tenant } from '../factories/account.factory.js';

/**
 * Each channel as the send pipeline sees it (its policy and a valid send), so a rule that holds
 * for every channel is stated once and run over the three with `describe.each(CHANNEL_CASES)`.
 */
export interface ChannelCase {
  channel: Channel;
  policy: ChannelPolicy;
  /** `n` valid recipients, none named before in this process. */
  recipients: (n: number) => string[];
  /** A recipient the channel refuses, and the reason it gives. */
  invalid: { recipient: string; reason: string };
  /** A valid send of this channel to `recipients`: one unit per recipient on every channel. */
  input: (recipients: string[], over?: Partial<SendInput>) => SendInput;
}

// Numbers and addresses counted from a random start, so files running at once name different ones.
let next = randomInt(1_000_000, 8_000_000);
const numbers = (n: number) => Array.from({ length: n }, () => `26097${next++}`);

export const CHANNEL_CASES: ChannelCase[] = [
  {
    channel: 'sms',
    policy: new SmsPolicy(),
    recipients: numbers,
    invalid: { recipient: 'not-a-number', reason: 'INVALID_NUMBER' },
    input: (recipients, over = {}) => ({ sender: 'ACME', recipients, body: 'hello', ...over }),
  },
  {
    channel: 'email',
    policy: new EmailPolicy(),
    recipients: (n) => Array.from({ length: n }, () => `user${next++}@example.com`),
    invalid: { recipient: 'not-an-address', reason: 'INVALID_EMAIL' },
    input: (recipients, over = {}) => ({
      sender: 'noreply@acme.example.com',
      recipients,
      subject: 'Hello',
      body: '<p>hello</p>',
      ...over,
    }),
  },
  {
    channel: 'chat',
    policy: new ChatPolicy(),
    recipients: numbers,
    invalid: { recipient: 'not-a-number', reason: 'INVALID_NUMBER' },
    input: (recipients, over = {}) => ({ sender: '260971000000', recipients, body: 'hello', ...over }),
  },
];

/** A tenant with `balance` on the case's channel at `price` a unit (and a key with `key`'s limit). */
export function tenantOn(
  t: HasServices,
  c: ChannelCase,
  balance: string,
  price: string,
  key: { dailyLimit?: string } = {},
): Promise<Tenant> {
  return createTenant(t, { balances: { [c.channel]: balance }, prices: { [c.channel]: price }, key });
}

/** The case's valid send to `recipients`, made by a tenant's key or by a given caller. */
export function sendOn(
  sends: SendService,
  c: ChannelCase,
  who: Tenant | AuthContext,
  recipients: string[],
  over: Partial<SendInput> = {},
) {
  return sends.send(c.policy, 'apiKey' in who ? authOf(who) : who, c.input(recipients, over));
}
