import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { TtlCache } from '../../../platform/caching/ttl-cache.js';
import type { CallbackJob, WebhookCopy, WebhookEnvelope } from '../callback-job.js';
import { copiesIdOf, deliveryIdOf } from '../event-ids.js';
import { outboxRecipient } from '../outbox-recipient.js';
import { WebhookDeliveryStore, type NewDelivery, type PendingCopy } from './webhook-delivery.store.js';
import { WebhookEndpointStore, type WebhookEndpointRow } from './webhook-endpoint.store.js';
import { subscribes } from './webhook-event-types.js';

/** One event for an account's endpoints, as a feature publishes it. */
export interface PublishedEvent {
  accountId: string;
  type: string;
  /** The event's own fields (a message event: the delivery callback's). */
  data: object;
  /** An event of the account's test side (a test key's send): only its test endpoints hear it. */
  test: boolean;
  occurredAt: Date;
  /** Names the event to a receiver (deduplication); a new UUID when not given. */
  eventId?: string;
  /** The row the event is about (a message's or inbound message's id) for the attempt log; 0 when none. */
  subjectRowId?: string;
}

/**
 * Endpoints are read at most this long after a change in another process; the process that
 * changed one forgets its copy at once.
 */
const ENDPOINTS_TTL_MS = 2000;

/**
 * Turns events into what each subscribed endpoint is owed: a delivery-log row per endpoint and
 * the queue jobs that send them. All the log rows of a batch go in one statement, however many
 * endpoints subscribe. Fresh events (not the recovery sweep's) get one job per event for its
 * enabled endpoints, kept by the log rows alone (`first_pending`), with no outbox row: the
 * caller queues them, and the sweep queues again, under the same job id, those whose job was
 * lost. A disabled endpoint's events are logged but not sent, for a replay later. MySQL only:
 * the receiving path of inbound messages uses it without a queue.
 */
@Injectable()
export class WebhookFanOut {
  private readonly endpoints = new TtlCache<WebhookEndpointRow[]>(ENDPOINTS_TTL_MS, 10_000);

  constructor(
    private readonly endpointStore: WebhookEndpointStore,
    private readonly deliveries: WebhookDeliveryStore,
  ) {}

  /** Forgets the cached endpoints of an account (after a change through this process). */
  changed(accountId: string): void {
    this.endpoints.delete(accountId);
  }

  /** Whether an endpoint of the account's side takes one of the types (read through the cache). */
  async subscribed(accountId: string, test: boolean, types: readonly string[]): Promise<boolean> {
    return (await this.endpointsOf(accountId)).some(
      (w) => Boolean(w.test_mode) === test && types.some((t) => subscribes(w.events, t)),
    );
  }

  /** The accounts with an endpoint (of either side) that takes one of the types, read now. */
  async accountsSubscribed(types: readonly string[]): Promise<string[]> {
    const rows = await this.endpointStore.subscriptions();
    return [
      ...new Set(
        rows.filter((r) => types.some((t) => subscribes(r.events, t))).map((r) => String(r.account_id)),
      ),
    ];
  }

  /**
   * Logs the events owed and returns the jobs that send them. Each copy's id is derived from the
   * event's and the endpoint's, so an event published again (`again`: by the recovery sweep)
   * names the same copies: those logged already are left out, and so are endpoints made after
   * the event occurred, which were never owed it. A fresh event's job (CallbackJob.loggedOnly)
   * is to be queued without an outbox row; the sweep's are one per copy, kept on the outbox.
   */
  async prepare(events: PublishedEvent[], again = false): Promise<CallbackJob[]> {
    if (events.length === 0) return [];
    const byAccount = new Map<string, WebhookEndpointRow[]>();
    for (const accountId of new Set(events.map((e) => e.accountId)))
      byAccount.set(accountId, await this.endpointsOf(accountId));
    const rows: NewDelivery[] = [];
    const jobs: CallbackJob[] = [];
    for (const e of events) {
      const targets = byAccount
        .get(e.accountId)!
        .filter(
          (w) =>
            Boolean(w.test_mode) === e.test &&
            subscribes(w.events, e.type) &&
            (!again || new Date(w.created_at).getTime() <= e.occurredAt.getTime()),
        );
      if (targets.length === 0) continue;
      const envelope: WebhookEnvelope = {
        event_id: e.eventId ?? randomUUID(),
        type: e.type,
        occurred_at: e.occurredAt.toISOString(),
        data: e.data,
        test: e.test,
      };
      const text = JSON.stringify(envelope);
      const subjectId = e.subjectRowId ?? '0';
      const recipient = outboxRecipient({ eventType: 'webhook', payload: envelope });
      const copies: WebhookCopy[] = [];
      for (const w of targets) {
        const deliveryId = deliveryIdOf(envelope.event_id, w.uuid);
        const enabled = w.status === 'enabled';
        rows.push({
          deliveryId,
          eventId: envelope.event_id,
          webhookId: w.uuid,
          accountId: e.accountId,
          type: e.type,
          envelope: text,
          pending: enabled && !again,
          subjectId,
          recipient,
        });
        if (enabled) copies.push({ deliveryId, webhookId: w.uuid, url: w.url });
      }
      if (copies.length === 0) continue;
      // One job for the event's endpoints, its record the log rows. The recovery sweep's are one
      // per copy, to leave out those logged.
      if (!again) jobs.push(copiesJob(e.accountId, copies, envelope, subjectId));
      else
        for (const c of copies)
          jobs.push(
            webhookJob(
              { uuid: c.webhookId, url: c.url, account_id: e.accountId },
              c.deliveryId,
              envelope,
              subjectId,
            ),
          );
    }
    if (!again) {
      await this.deliveries.insert(rows);
      return jobs;
    }
    const logged = await this.deliveries.logged(rows.map((r) => r.deliveryId));
    await this.deliveries.insert(rows.filter((r) => !logged.has(r.deliveryId)));
    return jobs.filter((j) => !logged.has(j.eventId));
  }

  /**
   * The jobs of copies whose event's job may have been lost (`first_pending`), one per event as
   * the fan-out made it: the same job id, so a job still on the queue is not added twice. Each
   * copy goes to its endpoint's URL as it is now; a deleted endpoint's copies are gone with it.
   */
  async jobsOfPending(pending: PendingCopy[]): Promise<CallbackJob[]> {
    const endpoints = new Map(
      (await this.endpointStore.ofAccounts([...new Set(pending.map((p) => String(p.account_id)))])).map(
        (w) => [w.uuid, w],
      ),
    );
    const byEvent = new Map<string, { first: PendingCopy; copies: WebhookCopy[] }>();
    for (const p of pending) {
      const w = endpoints.get(p.webhook_id);
      if (!w) continue;
      const event = byEvent.get(p.event_id) ?? { first: p, copies: [] };
      event.copies.push({ deliveryId: p.delivery_id, webhookId: w.uuid, url: w.url });
      byEvent.set(p.event_id, event);
    }
    return [...byEvent.values()].map(({ first, copies }) =>
      copiesJob(
        String(first.account_id),
        copies,
        JSON.parse(first.envelope) as WebhookEnvelope,
        String(first.subject_id),
      ),
    );
  }

  private endpointsOf(accountId: string): Promise<WebhookEndpointRow[]> {
    return this.endpoints.get(accountId, () => this.endpointStore.ofAccounts([accountId]));
  }
}

/**
 * The job that POSTs an envelope to its endpoints, each copy once (CallbackJob.copies), kept by
 * the log rows alone; named by its event, so the sweep's job for the same event is the same job.
 */
function copiesJob(
  accountId: string,
  copies: WebhookCopy[],
  envelope: WebhookEnvelope,
  subjectRowId = '0',
): CallbackJob {
  return {
    eventId: copiesIdOf(envelope.event_id),
    url: copies[0]!.url,
    accountId,
    messageRowId: subjectRowId,
    eventType: 'webhook',
    webhookId: copies[0]!.webhookId,
    copies,
    loggedOnly: true,
    payload: envelope,
  };
}

/** The outbox job that POSTs an envelope to one endpoint; `deliveryId` names this copy. */
export function webhookJob(
  endpoint: Pick<WebhookEndpointRow, 'uuid' | 'url' | 'account_id'>,
  deliveryId: string,
  envelope: WebhookEnvelope,
  subjectRowId = '0',
): CallbackJob {
  return {
    eventId: deliveryId,
    url: endpoint.url,
    accountId: String(endpoint.account_id),
    messageRowId: subjectRowId,
    eventType: 'webhook',
    webhookId: endpoint.uuid,
    payload: envelope,
  };
}
