import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { DAY_MS } from '../../../database/partitions/day-partitions.js';
import { MicroBatcher } from '../../../platform/batching/micro-batcher.js';
import { RepeatLimiter } from '../../../platform/logging/repeat-limiter.js';
import type { Channel, MessageStatus } from '../../messages/channel.js';
import type { CommittedChange, StateChangeListener } from '../../delivery/lifecycle/state-change.listener.js';
import { messageEventPayload, type MessageEventPayload } from '../callback-job.js';
import { CallbackOutbox, FORGET_AFTER_HOURS } from '../callback.outbox.js';
import { EventCatchUpStore } from '../event-catch-up.store.js';
import { messageEventId } from '../event-ids.js';
import { CATCH_UP_BATCH, EventCatchUp, historyJournal, type CatchUpJournal } from '../event-catch-up.js';
import {
  MessageHistoryStore,
  type HistoryTable,
  type RecordedChange,
  type RecordedSend,
} from '../../messages/message-history.store.js';
import { DELIVERIES_KEPT_DAYS, WebhookDeliveryStore, type PendingCopy } from './webhook-delivery.store.js';
import { MESSAGE_EVENT_OF, WEBHOOK_EVENT_TYPES, type WebhookEventType } from './webhook-event-types.js';
import { WebhookFanOut, type PublishedEvent } from './webhook-fan-out.service.js';
import { WebhookCatchUpMetrics } from './webhooks.metrics.js';

/** An event as another feature hands it in: one of the subscribable types. */
export interface WebhookEvent extends PublishedEvent {
  type: WebhookEventType;
}

/** A send as committed, without its recipients. */
interface SendFacts {
  accountId: string;
  test: boolean;
  channel: Channel;
  apiReference: string;
  userReferenceId: string | null;
  at: Date;
}

/** A recipient of a send as the answer lists it. */
interface AnsweredEntry {
  messageId: string;
  uuid: string;
  recipient: string;
  status: Extract<MessageStatus, 'ACKNOWLEDGED' | 'SCHEDULED' | 'REJECTED'>;
  reason?: string | null;
}

/** A send as committed: its recipients as the answer lists them. */
export interface AcceptedSend extends SendFacts {
  entries: AnsweredEntry[];
}

const ACCEPTANCE_TYPES = ['message.accepted', 'message.scheduled', 'message.rejected'] as const;
const MESSAGE_TYPES = WEBHOOK_EVENT_TYPES.filter((t) => t.startsWith('message.'));
/** State changes are fanned out this long after the first of a batch arrives. */
const FAN_OUT_DELAY_MS = 50;
/** At most this many events per fan-out (times the endpoints, at most 10: the rows of its statements). */
const FAN_OUT_BATCH = 300;
/** The catch-ups' marks in event_catch_up: state changes (message_events), and sends (messages). */
const CATCH_UP = 'webhooks';
const SENDS_CATCH_UP = 'webhook-sends';
/** The mark of the catch-up of fresh events' queue jobs (the delivery log's first_pending copies). */
const JOBS_CATCH_UP = 'webhook-jobs';

/**
 * The one door for events to an account's webhook endpoints: `publish` logs each event for every
 * endpoint subscribed to its type and puts it on the callback queue (its log rows its record),
 * which signs, sends, retries and isolates targets as it does for delivery callbacks (at least
 * once: a receiver deduplicates by event_id). It also hears every committed state change of a
 * message (message.* events) and every committed send, and the recovery sweep re-derives, from
 * message_events and from messages, those that a crash kept from being kept, and queues again,
 * from the log, the jobs that a crash or Redis lost.
 */
@Injectable()
export class WebhookEvents implements StateChangeListener, BeforeApplicationShutdown {
  private readonly warnings = new RepeatLimiter(new Logger('Webhooks'));
  private readonly pending = new MicroBatcher<CommittedChange>({
    delayMs: FAN_OUT_DELAY_MS,
    maxBatch: FAN_OUT_BATCH,
    flush: (changes) => this.fanOutChanges(changes),
  });

  private readonly catchUps: Array<
    EventCatchUp<RecordedChange> | EventCatchUp<RecordedSend> | EventCatchUp<PendingCopy>
  >;

  constructor(
    private readonly fanOut: WebhookFanOut,
    private readonly outbox: CallbackOutbox,
    private readonly deliveries: WebhookDeliveryStore,
    marks: EventCatchUpStore,
    history: MessageHistoryStore,
    metrics: WebhookCatchUpMetrics,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    // Not further back than the delivery log tells what was kept, nor than messages are kept.
    const limits = (table: HistoryTable) => ({
      graceMs: config.eventCatchUpGraceMs,
      reachMs: Math.min(DELIVERIES_KEPT_DAYS, config.retention.messageDays) * DAY_MS,
      skipped: (fromId: string, toId: string) => {
        metrics.catchUpSkipped(table);
        this.warnings.warn(
          `the webhook catch-up of ${table} was left behind by more than the delivery log keeps: moved from id ${fromId} to ${toId} without re-checking the events in between`,
        );
      },
    });
    this.catchUps = [
      new EventCatchUp(
        CATCH_UP,
        marks,
        historyJournal(history, 'message_events', (a, f, u) => history.changesOf(a, f, u)),
        limits('message_events'),
        {
          accounts: () => this.fanOut.accountsSubscribed(MESSAGE_TYPES),
          keep: (changes) => this.fanOutAll(changes.map(eventOf), true),
        },
      ),
      new EventCatchUp(
        SENDS_CATCH_UP,
        marks,
        historyJournal(history, 'messages', (a, f, u) => history.sendsOf(a, f, u)),
        limits('messages'),
        {
          accounts: () => this.fanOut.accountsSubscribed(ACCEPTANCE_TYPES),
          keep: (sends) => this.fanOutAll(sends.map(acceptanceOfRecorded), true),
        },
      ),
      // A fresh event's job has no outbox row: its log rows are read once, between one and two
      // grace periods after they were written, and the job of a copy not yet taken is queued
      // again under its id (a job still on the queue is not added twice).
      new EventCatchUp(
        JOBS_CATCH_UP,
        marks,
        deliveryLogJournal(deliveries),
        {
          graceMs: config.eventCatchUpGraceMs,
          reachMs: FORGET_AFTER_HOURS * 3600_000,
          skipped: (fromId: string, toId: string) => {
            metrics.catchUpSkipped('webhook_deliveries');
            this.warnings.warn(
              `the webhook job catch-up was left behind by more than ${FORGET_AFTER_HOURS} hours: moved from id ${fromId} to ${toId} without queuing the copies in between`,
            );
          },
        },
        { accounts: async () => ['*'], keep: (copies) => this.requeue(copies) },
      ),
    ];
    // A queue that lost its data lost the jobs of the copies not yet taken.
    outbox.onQueueLost(() => this.requeueAllPending());
  }

  /** Resolves once the events are kept (or, for none subscribed, at once). */
  async publish(events: WebhookEvent | WebhookEvent[]): Promise<void> {
    await this.fanOutAll(Array.isArray(events) ? events : [events], false);
  }

  /**
   * The message.accepted, message.scheduled and message.rejected events of a send just committed,
   * one per recipient; nothing is built when no endpoint of the side takes them. Never throws:
   * the send stands, and a failure is logged. Events a crash (or a failure here) kept from being
   * kept are kept by the recovery sweep from the messages' rows, under the same ids.
   */
  async accepted(send: AcceptedSend): Promise<void> {
    try {
      if (!(await this.fanOut.subscribed(send.accountId, send.test, ACCEPTANCE_TYPES))) return;
      await this.publish(send.entries.map((e) => acceptanceEvent(send, e)));
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
   * and two EVENT_CATCH_UP_GRACE_MS after the change (EventCatchUp). An event kept by both
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

  private async fanOutAll(events: WebhookEvent[], again: boolean): Promise<number> {
    let kept = 0;
    // A send of thousands of recipients is fanned out in slices, each statement a few MB at most.
    for (let i = 0; i < events.length; i += FAN_OUT_BATCH) {
      const jobs = await this.fanOut.prepare(events.slice(i, i + FAN_OUT_BATCH), again);
      // A fresh event's job is recorded by its log rows; the sweep's go on the outbox.
      if (again) await this.outbox.queue(jobs);
      else await this.outbox.queueLogged(jobs);
      kept += jobs.length;
    }
    return kept;
  }

  /** Queues again the jobs of these copies not yet taken (the same job ids); returns how many jobs. */
  private async requeue(copies: PendingCopy[]): Promise<number> {
    const jobs = await this.fanOut.jobsOfPending(copies);
    await this.outbox.queueLogged(jobs);
    return jobs.length;
  }

  /** Every copy logged within the outbox's reach whose job is not yet taken goes back on the queue. */
  private async requeueAllPending(): Promise<void> {
    let after = await this.deliveries.idBefore(FORGET_AFTER_HOURS);
    const last = await this.deliveries.lastId();
    let queued = 0;
    while (BigInt(after) < BigInt(last)) {
      const end = await this.deliveries.batchEnd(after, last, CATCH_UP_BATCH);
      queued += await this.requeue(await this.deliveries.pendingIn(after, end));
      after = end;
    }
    if (queued) this.warnings.warn(`${queued} webhook event job(s) lost with the queue go back on it`);
  }

  /**
   * Run by the recovery sweep: keeps the message.* events that committed state changes and sends
   * owe and no process kept (EventCatchUp, over message_events and over messages), queues again
   * the jobs of copies logged and not yet taken (over the delivery log), then keeps the log to
   * its days. The outbox's own sweep queues what is kept on the outbox.
   */
  async recover(): Promise<number> {
    let kept = 0;
    for (const catchUp of this.catchUps) kept += await catchUp.round();
    if (kept)
      this.warnings.warn(`kept ${kept} message event(s) that their state change or send had not kept`);
    await this.deliveries.prune();
    return kept;
  }
}

/** The delivery log as a journal of the copies whose first attempt their event's job owes. */
function deliveryLogJournal(deliveries: WebhookDeliveryStore): CatchUpJournal<PendingCopy> {
  return {
    lastId: () => deliveries.lastId(),
    batchEnd: (afterId, uptoId, rows) => deliveries.batchEnd(afterId, uptoId, rows),
    // Every account's rows: `accounts` names none in particular.
    read: (_accounts, afterId, uptoId) => deliveries.pendingIn(afterId, uptoId),
    skipTo: (afterId, since) => deliveries.skipTo(afterId, since),
  };
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

/** A send's event for one recipient (message.accepted, .scheduled or .rejected), named by its message and state. */
function acceptanceEvent(send: SendFacts, e: AnsweredEntry): WebhookEvent {
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
}

/** The same event read back from the message's row (the sweep's catch-up of sends). */
function acceptanceOfRecorded(m: RecordedSend): WebhookEvent {
  return acceptanceEvent(
    {
      accountId: m.accountId,
      test: m.test,
      channel: m.channel,
      apiReference: m.sendRequestId,
      userReferenceId: m.userReferenceId,
      at: m.createdAt,
    },
    m,
  );
}
