import { Pacer } from '../../../platform/timing/pacer.js';
import { testOutcome } from './test-outcomes.js';
import { SandboxTransport, type SandboxTransportOptions } from './sandbox.transport.js';
import type { InboundHandler, OutboundMessage, TransportResult } from './transport.js';

/**
 * Plays the provider for requests made with a test key: nothing leaves the system, and the
 * recipient decides the outcome (transports/test-outcomes.ts). A refusal, a failure or a bounce is answered
 * at hand-over, as a provider would answer it (a bounce as an MTA's 5.1.x refusal of the mailbox,
 * so the address is suppressed as a real bounce is, on the account's test list); a delivery or
 * non-delivery is reported after the delivery delay, through the same report path as a real
 * provider's receipts. A recipient that answers (0004: STOP) texts the sender id back once its
 * delivery is reported, through the inbound path of SMSC messages. It takes messages at
 * TEST_DISPATCH_RATE per second: a flood of test sends costs the worker and MySQL no more than
 * that pace, and the live queues keep the rest.
 */
export class TestTransport extends SandboxTransport {
  override readonly name: string = 'test';
  private inbound?: InboundHandler;
  private readonly pacer: Pacer;

  constructor(options: SandboxTransportOptions, messagesPerSecond: number) {
    super(options);
    this.pacer = new Pacer(messagesPerSecond);
  }

  onInbound(handler: InboundHandler): void {
    this.inbound = handler;
  }

  override async send(messages: OutboundMessage[]): Promise<TransportResult[]> {
    if (this.isClosed) return messages.map(() => ({ kind: 'transient', reason: 'TRANSPORT_CLOSED' }));
    await this.pacer.take(messages.length);
    return messages.map((message): TransportResult => {
      const outcome = testOutcome(message.channel, message.recipient);
      if (outcome.kind === 'rejected') return { kind: 'permanent', reason: outcome.reason };
      if (outcome.kind === 'failed') return { kind: 'transient', reason: outcome.reason };
      if (outcome.kind === 'bounced')
        return { kind: 'permanent', reason: outcome.reason, mailboxRefused: true };
      const providerMessageId = `test-${message.uuid}`;
      const reply = outcome.kind === 'delivered' ? outcome.reply : undefined;
      this.schedule(
        {
          providerMessageId,
          status: outcome.kind === 'delivered' ? 'DELIVERED' : 'UNDELIVERED',
          reason: outcome.kind === 'delivered' ? null : outcome.reason,
        },
        reply && message.accountId ? () => this.answer(message, reply) : undefined,
      );
      return { kind: 'accepted', providerMessageId };
    });
  }

  private async answer(message: OutboundMessage, text: string): Promise<void> {
    await this.inbound?.({
      from: message.recipient,
      to: message.sender,
      text,
      test: { accountId: message.accountId! },
    });
  }

  override async health() {
    return {
      status: 'up' as const,
      message: 'test transport: test keys reach no provider',
      response_time_ms: 0,
    };
  }
}
