import { testOutcome } from '../test-outcomes.js';
import { SandboxTransport } from './sandbox.transport.js';
import type { OutboundMessage, TransportResult } from './transport.js';

/**
 * Plays the provider for requests made with a test key: nothing leaves the system, and the
 * recipient decides the outcome (test-outcomes.ts). A refusal or a failure is answered at
 * hand-over, as a provider would answer it; a delivery, non-delivery or bounce is reported
 * after the delivery delay, through the same report path as a real provider's receipts.
 */
export class TestTransport extends SandboxTransport {
  override readonly name: string = 'test';

  override async send(messages: OutboundMessage[]): Promise<TransportResult[]> {
    if (this.isClosed) return messages.map(() => ({ kind: 'transient', reason: 'TRANSPORT_CLOSED' }));
    return messages.map((message): TransportResult => {
      const outcome = testOutcome(message.channel, message.recipient);
      if (outcome.kind === 'rejected') return { kind: 'permanent', reason: outcome.reason };
      if (outcome.kind === 'failed') return { kind: 'transient', reason: outcome.reason };
      const providerMessageId = `test-${message.uuid}`;
      this.schedule({
        providerMessageId,
        status:
          outcome.kind === 'delivered'
            ? 'DELIVERED'
            : outcome.kind === 'bounced'
              ? 'REJECTED'
              : 'UNDELIVERED',
        reason: outcome.kind === 'delivered' ? null : outcome.reason,
      });
      return { kind: 'accepted', providerMessageId };
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
