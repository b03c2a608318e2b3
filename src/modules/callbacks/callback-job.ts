import { randomUUID } from 'node:crypto';
import type { Channel, MessageStatus } from '../messages/channel.js';
import {
  CALLBACK_ATTEMPTS,
  CALLBACK_COMPLETED_KEPT,
  CALLBACK_FAILED_KEPT,
} from '../delivery/retry-policy.js';
import type { CommittedChange } from '../delivery/lifecycle/state-change.listener.js';

export const CALLBACK_QUEUE = 'callbacks';

/**
 * One event to POST: to the callback_url a send request named (one per state change of one
 * message), or to an account's inbound webhook (one per inbound message).
 */
export interface CallbackJob {
  eventId: string;
  url: string;
  accountId: string;
  /** The row the event is about: a message, or an inbound message when eventType is 'inbound'. */
  messageRowId: string;
  /**
   * Absent for a message's state change; 'inbound' for an inbound message sent to the inbound
   * webhook; 'webhook' for an event to a subscribed endpoint (eventId then names the event's copy
   * for that endpoint, the payload's event_id the event).
   */
  eventType?: 'inbound' | 'webhook';
  /** The endpoint of a 'webhook' event: its secret signs it. */
  webhookId?: string;
  /**
   * A 'webhook' event for several endpoints in one job (eventId then names the job; url and
   * webhookId are the first copy's): each copy is attempted once from it, and a copy that
   * needs another attempt goes on as a job of its own, named by its copy's id.
   */
  copies?: WebhookCopy[];
  /**
   * The job has no outbox row: its copies' delivery-log rows are its record (`first_pending`),
   * and the recovery sweep queues it again, under the same id, when it was lost.
   */
  loggedOnly?: true;
  payload: MessageEventPayload | InboundEventPayload | WebhookEnvelope;
}

/** One endpoint's copy of a webhook event. */
export interface WebhookCopy {
  deliveryId: string;
  webhookId: string;
  url: string;
}

/** What a subscribed endpoint is POSTed: one event, `data` as the event type defines it. */
export interface WebhookEnvelope {
  event_id: string;
  type: string;
  occurred_at: string;
  data: object;
  /** True for an event of the account's test side. */
  test: boolean;
}

export interface MessageEventPayload {
  event_id: string;
  message_id: string;
  api_reference: string;
  user_reference_id: string | null;
  channel: Channel;
  recipient: string;
  status: MessageStatus;
  reason: string | null;
  occurred_at: string;
  /** True for a message sent with a test key (it reached no provider), false for a live one. */
  test: boolean;
}

export interface InboundEventPayload {
  event_id: string;
  type: 'inbound.sms';
  inbound_id: string;
  from: string;
  to: string;
  text: string;
  keyword: string | null;
  received_at: string;
  in_reply_to: string | null;
  /** True on the account's test side (a test recipient's reply), false for a message from a handset. */
  test: boolean;
}

/** The event for a committed state change, or null when the request named no callback_url. */
export function callbackJobFor(change: CommittedChange): CallbackJob | null {
  const row = change.message;
  if (!row.callback_url) return null;
  const eventId = randomUUID();
  return {
    eventId,
    url: row.callback_url,
    accountId: String(row.account_id),
    messageRowId: String(row.id),
    payload: messageEventPayload(change, eventId),
  };
}

/** What a callback says of a committed state change (a webhook's `data` for message.* events too). */
export function messageEventPayload(change: CommittedChange, eventId: string): MessageEventPayload {
  const row = change.message;
  return {
    event_id: eventId,
    // The id the send answer gave: the UUID for SMS and chat, the numeric id for e-mail.
    message_id: row.channel === 'email' ? String(row.id) : row.uuid,
    api_reference: String(row.send_request_id),
    user_reference_id: row.user_reference_id,
    channel: row.channel,
    recipient: row.recipient,
    status: change.status,
    reason: change.reason,
    occurred_at: change.at.toISOString(),
    test: row.test_mode === true,
  };
}

/** The options every callback job is queued with: CALLBACK_ATTEMPTS attempts on the jittered schedule. */
export function callbackJobOptions(eventId: string) {
  return {
    jobId: eventId,
    attempts: CALLBACK_ATTEMPTS,
    backoff: { type: 'jittered' },
    removeOnComplete: CALLBACK_COMPLETED_KEPT,
    removeOnFail: CALLBACK_FAILED_KEPT,
  };
}
