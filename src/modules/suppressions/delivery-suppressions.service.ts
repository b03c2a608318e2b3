import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import type { Channel } from '../messages/channel.js';
import { SuppressionStore, type ListOwner } from './suppression.store.js';
import { listUnsubscribeHeaders } from './unsubscribe-links.service.js';

/**
 * What delivery asks of the suppression list: the unsubscribe headers an e-mail carries (when
 * PUBLIC_BASE_URL is set), and the addresses to suppress after a permanent mailbox refusal.
 */
@Injectable()
export class DeliverySuppressions {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly store: SuppressionStore,
  ) {}

  headersFor(channel: Channel, messageUuid: string): Record<string, string> | undefined {
    if (channel !== 'email' || !this.config.publicBaseUrl) return undefined;
    return listUnsubscribeHeaders(this.config.publicBaseUrl, messageUuid);
  }

  /**
   * The recipients among `recipients` suppressed since their message was accepted (a STOP or an
   * unsubscribe while it waited for its send_at or in the queue): one statement per chunk.
   */
  async suppressedNow(owner: ListOwner, channel: Channel, recipients: string[]): Promise<Set<string>> {
    return recipients.length ? this.store.suppressedAmong(owner, channel, recipients) : new Set();
  }

  /** Addresses whose mailbox was refused for good (SMTP 5.1.x): reason BOUNCE. */
  async bounced(owner: ListOwner, recipients: string[]): Promise<void> {
    if (recipients.length) await this.store.add(owner, 'email', recipients, 'BOUNCE');
  }
}
