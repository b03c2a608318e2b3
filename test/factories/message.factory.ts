import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Decimal } from 'decimal.js';
import type { Channel } from '../../src/modules/messages/channel.js';
import {
  MessageStore,
  type NewMessageRow,
  type NewSendRequest,
  type StateWrite,
} from '../../src/modules/messages/message.store.js';
import { MessageStateStore } from '../../src/modules/messages/message-state.store.js';
import type { HasServices, Tenant } from './account.factory.js';

/**
 * A stored send (its send_requests row and its messages) written through MessageStore as the
 * send pipeline writes it, without pricing, queues or a balance: for specs of the stores and
 * services that read messages back. The context must hold MessageStore (MessagesModule).
 */

/** Who a stored send is of: an account and the key it was made with (test: a test-mode key's). */
export interface SendOwner {
  accountId: string;
  apiKeyId: string;
  testMode?: boolean;
}

/** The owner of a tenant's live sends, or (with `'test'`) of its test key's. */
export function ownerOf(
  tenant: Pick<Tenant, 'account' | 'apiKey' | 'test'>,
  mode: 'live' | 'test' = 'live',
): SendOwner {
  if (mode === 'live') return { accountId: tenant.account.id, apiKeyId: tenant.apiKey.id };
  if (!tenant.test) throw new Error('the tenant was made without a test key (createTenant with test: true)');
  return { accountId: tenant.account.id, apiKeyId: tenant.test.apiKey.id, testMode: true };
}

let seq = 0;
/**
 * A 19-digit id growing with time as the service's are (13 digits of epoch milliseconds, then 6
 * of this process's sequence), so walks in id order meet rows in the order they were made.
 */
export function nextId(at = Date.now()): string {
  seq = (seq + 1) % 1_000_000;
  return `${at}${String(seq).padStart(6, '0')}`;
}

/** A message of a stored send: a recipient, or a recipient with columns of its own. */
export type MessageSpec = string | ({ recipient: string } & Partial<NewMessageRow>);

export interface StoredSend {
  request: NewSendRequest;
  messages: NewMessageRow[];
  /** The messages' ids, in the order given. */
  ids: string[];
}

/**
 * Stores one request and its messages in one transaction. Each message is ACKNOWLEDGED and costs
 * `unitCost` unless it says otherwise; a REJECTED one costs nothing. The request's counts and
 * cost are those of its messages.
 */
export async function storeSend(
  t: HasServices,
  owner: SendOwner,
  opts: {
    channel?: Channel;
    messages?: MessageSpec[];
    unitCost?: string;
    request?: Partial<NewSendRequest>;
  } = {},
): Promise<StoredSend> {
  const createdAt = opts.request?.createdAt ?? new Date();
  const channel = opts.channel ?? opts.request?.channel ?? 'sms';
  const messages = (opts.messages ?? ['260971000001']).map((spec): NewMessageRow => {
    const m = typeof spec === 'string' ? { recipient: spec } : spec;
    const rejected = m.status === 'REJECTED';
    return {
      id: nextId(createdAt.getTime()),
      uuid: randomUUID(),
      status: 'ACKNOWLEDGED',
      reason: rejected ? 'INVALID_RECIPIENT' : null,
      units: rejected ? 0 : 1,
      cost: rejected ? '0' : (opts.unitCost ?? '0.5'),
      ...m,
    };
  });
  const request: NewSendRequest = {
    id: nextId(createdAt.getTime()),
    accountId: owner.accountId,
    apiKeyId: owner.apiKeyId,
    testMode: owner.testMode ?? false,
    channel,
    sender: channel === 'email' ? 'from@acme.example' : 'ACME',
    subject: channel === 'email' ? 'a subject' : null,
    body: 'hello',
    replyTo: null,
    source: null,
    callbackUrl: null,
    userReferenceId: null,
    requestHash: Buffer.alloc(32),
    recipientCount: messages.length,
    acceptedCount: messages.filter((m) => m.units > 0).length,
    unitsPerRecipient: 1,
    cost: messages.reduce((sum, m) => sum.plus(m.cost), new Decimal(0)).toFixed(6),
    currency: 'ZMW',
    createdAt,
    sendAt: null,
    dueAt: null,
    validityPeriod: 172_800,
    validUntil: new Date(createdAt.getTime() + 172_800_000),
    enqueuedAt: createdAt,
    ...opts.request,
  };
  const store = t.app.get(MessageStore);
  await t.app.get(DataSource).transaction(async (em) => {
    await store.insertRequests(em, [request]);
    await store.insertMessages(em, [
      {
        common: { sendRequestId: request.id, accountId: owner.accountId, channel, createdAt },
        rows: messages,
      },
    ]);
  });
  return { request, messages, ids: messages.map((m) => m.id) };
}

/**
 * Moves messages to a state as the lifecycle writes it (MessageStateStore.writeTransitions: the
 * state, its time, a history row each), without the transition rules or refunds.
 */
export async function moveTo(
  t: HasServices,
  ids: string[],
  status: StateWrite['status'],
  extra: Partial<Omit<StateWrite, 'id' | 'status'>> = {},
): Promise<void> {
  const at = extra.at ?? new Date();
  await t.app.get(DataSource).transaction((em) =>
    t.app.get(MessageStateStore).writeTransitions(
      em,
      ids.map((id) => ({ id, status, reason: null, providerMessageId: null, ...extra, at })),
    ),
  );
}
