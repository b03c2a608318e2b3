import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { MicroBatcher } from '../../../platform/batching/micro-batcher.js';
import { RepeatLimiter } from '../../../platform/logging/repeat-limiter.js';
import type { Channel, MessageStatus } from '../../messages/channel.js';
import type { CommittedChange, StateChangeListener } from '../../delivery/lifecycle/state-change.listener.js';
import { messageEventPayload, type MessageEventPayload } from '../callback-job.js';
import { CallbackOutbox } from '../callback.outbox.js';
import { EventCatchUpStore } from '../event-catch-up.store.js';
import { messageEventId } from '../event-ids.js';
import { StateChangeCatchUp } from '../state-change-catch-up.js';
import { MessageHistoryStore, type RecordedChange } from '../../messages/message-history.store.js';
import { WebhookDeliveryStore } from './webhook-delivery.store.js';
import { MESSAGE_EVENT_OF, WEBHOOK_EVENT_TYPES, type WebhookEventType } from './webhook-event-types.js';
import { WebhookFanOut, type PublishedEvent } from './webhook-fan-out.service.js';

/** An event as another feature hands it in: one of the subscribable types. */
export interface WebhookEvent extends PublishedEvent {
  type: WebhookEventType;
}

/** A send as committed: its recipients as the answer lists them. */
export interface AcceptedSend {
  accountId: string;
  test: boolean;
  channel: Channel;
  apiReference: string;
  userReferenceId: string | null;
  at: Date;
  entries: Array<{
    messageId: string;
    uuid: string;
    recipient: string;
    status: Extract<MessageStatus, 'ACKNOWLEDGED' | 'SCHEDULED' | 'REJECTED'>;
    reason?: string;
  }>;
}

const ACCEPTANCE_TYPES = ['message.accepted', 'message.scheduled', 'message.rejected'] as const;
const MESSAGE_TYPES = WEBHOOK_EVENT_TYPES.filter((t) => t.startsWith('message.'));
/** State changes are fanned out this long after the first of a batch arrives. */
const FAN_OUT_DELAY_MS = 50;
/** At most this many events per fan-out (times the endpoints, at most 10: the rows of its statements). */
const FAN_OUT_BATCH = 300;
/** The catch-up's mark in event_catch_up. */
const CATCH_UP = 'webhooks';

/**
 * The one door for events to an account's webhook endpoints: `publish` logs each event for every
 * endpoint subscribed to its type and puts it on the callback outbox, which signs, sends, retries
 * and isolates targets as it does for delivery callbacks (at least once: a receiver deduplicates
 * by event_id). It also hears every committed state change of a message (message.* events), and
 * the recovery sweep re-derives from message_events those that a crash kept from being kept.
 */
@Injectable()
export class WebhookEvents implements StateChangeListener, BeforeApplicationShutdown {
  private readonly warnings = new RepeatLimiter(new Logger('Webhooks'));
  private readonly pending = new MicroBatcher<CommittedChange>({
    delayMs: FAN_OUT_DELAY_MS,
    maxBatch: FAN_OUT_BATCH,
    flush: (changes) => this.fanOutChanges(changes),
  });

  private readonly catchUp: StateChangeCatchUp;

  constructor(
    private readonly fanOut: WebhookFanOut,
    private readonly outbox: CallbackOutbox,
    private readonly deliveries: WebhookDeliveryStore,
    marks: EventCatchUpStore,
    history: MessageHistoryStore,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.catchUp = new StateChangeCatchUp(CATCH_UP, marks, history, config.eventCatchUpGraceMs, {
      accounts: () => this.fanOut.accountsSubscribed(MESSAGE_TYPES),
      keep: (changes) => this.keepAgain(changes),
    });
  }

  /** Resolves once the events are kept (or, for none subscribed, at once). */
  async publish(events: WebhookEvent | WebhookEvent[]): Promise<void> {
    await this.fanOutAll(Array.isArray(events) ? events : [events], false);
  }

  /**
   * The message.accepted, message.scheduled and message.rejected events of a send just committed,
   * one per recipient; nothing is built when no endpoint of the side takes them. Never throws:
   * the send stands, and a failure is logged.
   */
  async accepted(send: AcceptedSend): Promise<void> {
    try {
      if (!(await this.fanOut.subscribed(send.accountId, send.test, ACCEPTANCE_TYPES))) return;
      await this.publish(
        send.entries.map((e) => {
          const eventId = messageEventId(e.messageId, e.status);
          const data: MessageEventPayload = {
            event_id: eventId,
            // The id the send answer gave: the UUID for SMS and chat, the numeric id for e-mail.
            message_id: send.channel === 'email' ? e.messageId : e.uuid,
            api_reference: send.apiReference,
            user_reference_id: send.userReferenceId,
            channel: send.channel,
            recipient: e.recipient,
            status: e.status,
            reason: e.reason ?? null,
            occurred_at: send.at.toISOString(),
            test: send.test,
          };
          return {
            accountId: send.accountId,
            type: MESSAGE_EVENT_OF[e.status],
            data,
            test: send.test,
            occurredAt: send.at,
            eventId,
            subjectRowId: e.messageId,
          };
        }),
      );
    } catch (err) {
      this.warnings.warn(
        `acceptance events of request ${send.apiReference} not kept: ${(err as Error).message}`,
      );
    }
  }

  /**
   * A message's state changes, for the endpoints of its account's side that take them. Only
   * collected here (the cached endpoints tell which changes are owed anything): the events are
   * logged and kept in the background, up to FAN_OUT_DELAY_MS later and many receipt batches
   * together, so the state path never waits for the fan-out. A process that dies before they are
   * kept loses nothing: each event's id is derived from its message and state (event-ids.ts), and
   * the recovery sweep keeps, from message_events, those not logged for an endpoint, between one
   * and two EVENT_CATCH_UP_GRACE_MS after the change (StateChangeCatchUp). An event kept by both
   * is logged and sent once.
   */
  async committed(changes: CommittedChange[]): Promise<void> {
    const owed = new Map<string, boolean>();
    for (const c of changes) {
      const side = `${c.message.account_id}/${c.message.test_mode === true}`;
      if (!owed.has(side))
        owed.set(
          side,
          await this.fanOut.subscribed(
            String(c.message.account_id),
            c.message.test_mode === true,
            MESSAGE_TYPES,
          ),
        );
      if (owed.get(side)) this.pending.add(c);
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.pending.close();
    this.warnings.flush();
  }

  private async fanOutChanges(changes: CommittedChange[]): Promise<void> {
    await this.fanOutAll(changes.map(eventOf), false).catch((err: Error) =>
      this.warnings.warn(
        `${changes.length} message event(s) not kept now (${err.message}); the recovery sweep keeps them`,
      ),
    );
  }

  /** The events of recorded changes not kept yet (the sweep's catch-up); returns how many copies were kept. */
  private async keepAgain(changes: RecordedChange[]): Promise<number> {
    return this.fanOutAll(changes.map(eventOf), true);
  }

  private async fanOutAll(events: WebhookEvent[], again: boolean): Promise<number> {
    let kept = 0;
    // A send of thousands of recipients is fanned out in slices, each statement a few MB at most.
    for (let i = 0; i < events.length; i += FAN_OUT_BATCH) {
      const jobs = await this.fanOut.prepare(events.slice(i, i + FAN_OUT_BATCH), again);
      if (jobs.length) await this.outbox.queue(jobs);
      kept += jobs.length;
    }
    return kept;
  }

  /**
   * Run by the recovery sweep: keeps the message.* events that committed changes owe and no
   * process kept (StateChangeCatchUp), then keeps the log to its days. The outbox's own sweep
   * queues what is kept.
   */
  async recover(): Promise<number> {
    const kept = await this.catchUp.round();
    if (kept) this.warnings.warn(`kept ${kept} message event(s) that their state change had not kept`);
    await this.deliveries.prune();
    return kept;
  }
}

/** A state change's message.* event, named by its message and state. */
function eventOf(c: CommittedChange): WebhookEvent {
  const eventId = messageEventId(String(c.message.id), c.status);
  return {
    accountId: String(c.message.account_id),
    type: MESSAGE_EVENT_OF[c.status],
    data: messageEventPayload(c, eventId),
    test: c.message.test_mode === true,
    occurredAt: c.at,
    eventId,
    subjectRowId: String(c.message.id),
  };
}
