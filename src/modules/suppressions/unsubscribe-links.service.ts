import { Injectable } from '@nestjs/common';
import { MessageLookupStore } from '../messages/message-lookup.store.js';
import { SuppressionStore } from './suppression.store.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * The token of an e-mail's unsubscribe link is the message's own UUID: 74 bits drawn from the
 * system's random source, never shown to the reader anywhere else (an e-mail's message_id is
 * its numeric id), and it names the account and the address without a table of its own.
 */
export function unsubscribeUrl(publicBaseUrl: string, messageUuid: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/unsubscribe/${messageUuid}`;
}

/** The List-Unsubscribe headers of RFC 2369 and RFC 8058 for one e-mail. */
export function listUnsubscribeHeaders(publicBaseUrl: string, messageUuid: string): Record<string, string> {
  return {
    'List-Unsubscribe': `<${unsubscribeUrl(publicBaseUrl, messageUuid)}>`,
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
  };
}

@Injectable()
export class UnsubscribeLinks {
  constructor(
    private readonly messages: MessageLookupStore,
    private readonly suppressions: SuppressionStore,
  ) {}

  /** Suppresses the link's address for its account; null for a token that names no e-mail. */
  async unsubscribe(token: string): Promise<number | null> {
    const uuid = token.toLowerCase();
    if (!UUID.test(uuid)) return null;
    const message = await this.messages.findRecipientByUuid(uuid);
    if (!message || message.channel !== 'email') return null;
    return this.suppressions.add(
      { accountId: String(message.account_id), testMode: Boolean(message.test_mode) },
      'email',
      [message.recipient],
      'UNSUBSCRIBE',
    );
  }
}
