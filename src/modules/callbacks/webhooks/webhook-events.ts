import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { CommittedChange, StateChangeListener } from '../../delivery/state-change-listener.js';
import { messageEventPayload } from '../callback-job.js';
import { CallbackOutbox } from '../callback-outbox.js';
import { WebhookDeliveryStore } from './webhook-delivery.store.js';
import { MESSAGE_EVENT_OF, type WebhookEventType } from './webhook-event-types.js';
import { WebhookFanOut, type PublishedEvent } from './webhook-fan-out.js';

/** An event as another feature hands it in: one of the subscribable types. */
export interface WebhookEvent extends PublishedEvent {
  type: WebhookEventType;
}

/**
 * The one door for events to an account's webhook endpoints: `publish` logs each event for every
 * endpoint subscribed to its type and puts it on the callback outbox, which signs, sends, retries
 * and isolates targets as it does for delivery callbacks (at least once: a receiver deduplicates
 * by event_id). It also hears every committed state change of a message (message.* events).
 */
@Injectable()
export class WebhookEvents implements StateChangeListener {
  constructor(
    private readonly fanOut: WebhookFanOut,
    private readonly outbox: CallbackOutbox,
    private readonly deliveries: WebhookDeliveryStore,
  ) {}

  /** Resolves once the events are kept (or, for none subscribed, at once). */
  async publish(events: WebhookEvent | WebhookEvent[]): Promise<void> {
    const jobs = await this.fanOut.prepare(Array.isArray(events) ? events : [events]);
    if (jobs.length) await this.outbox.queue(jobs);
  }

  async committed(changes: CommittedChange[]): Promise<void> {
    await this.publish(
      changes.map((c) => {
        const eventId = randomUUID();
        return {
          accountId: String(c.message.account_id),
          type: MESSAGE_EVENT_OF[c.status],
          data: messageEventPayload(c, eventId),
          test: c.message.test_mode === true,
          occurredAt: c.at,
          eventId,
          subjectRowId: String(c.message.id),
        };
      }),
    );
  }

  /** The outbox's own sweep queues what is kept; here the log is kept to its days. */
  async recover(): Promise<number> {
    await this.deliveries.prune();
    return 0;
  }
}
