import { createHash, randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import {
  MessageStore,
  type MessageGroup,
  type NewSendRequest,
} from '../../src/modules/messages/message.store.js';

/**
 * Request and message rows as the send pipeline writes them, for the message stores' specs:
 * ids from a counter of this process, a request stored an hour ago unless told otherwise.
 */

let nextId = 10_000_000n;
const id = () => String(++nextId);
const hourAgo = () => new Date(Date.now() - 3_600_000);

export function request(over: Partial<NewSendRequest> = {}): NewSendRequest {
  return {
    id: id(),
    accountId: '7',
    apiKeyId: '3',
    channel: 'sms',
    sender: 'ACME',
    subject: null,
    body: 'hello',
    replyTo: null,
    source: null,
    callbackUrl: null,
    userReferenceId: null,
    requestHash: createHash('sha256').update(randomUUID()).digest(),
    recipientCount: 2,
    acceptedCount: 1,
    unitsPerRecipient: 1,
    cost: '0.5',
    currency: 'ZMW',
    createdAt: hourAgo(),
    sendAt: null,
    dueAt: null,
    validityPeriod: 172_800,
    validUntil: new Date(Date.now() + 172_800_000),
    enqueuedAt: null,
    ...over,
  };
}

export function group(req: NewSendRequest, recipients: string[], rejected: string[] = []): MessageGroup {
  return {
    common: {
      sendRequestId: req.id,
      accountId: req.accountId,
      channel: req.channel,
      createdAt: req.createdAt,
    },
    rows: [
      ...recipients.map((recipient) => ({
        id: id(),
        uuid: randomUUID(),
        recipient,
        status: 'ACKNOWLEDGED' as const,
        reason: null,
        units: req.unitsPerRecipient,
        cost: '0.5',
      })),
      ...rejected.map((recipient) => ({
        id: id(),
        uuid: randomUUID(),
        recipient,
        status: 'REJECTED' as const,
        reason: 'INVALID_RECIPIENT',
        units: 0,
        cost: '0',
      })),
    ],
  };
}

/** Stores one request with its messages, as the send pipeline does, and returns both. */
export async function accept(
  ds: DataSource,
  over: Partial<NewSendRequest> = {},
  recipients = ['260971000001'],
  rejected: string[] = [],
) {
  const req = request(over);
  const g = group(req, recipients, rejected);
  const store = new MessageStore(ds);
  await ds.transaction(async (em) => {
    await store.insertRequests(em, [req]);
    await store.insertMessages(em, [g]);
  });
  return { req, ids: g.rows.map((r) => r.id) };
}
