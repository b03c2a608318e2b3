import type { AuthContext } from '../api-keys/auth/auth-context.js';
import type { Channel } from '../messages/channel.js';
import type { NewMessageRow } from '../messages/message.types.js';
import type { AfterCommit, PreparedSend } from './send.committer.js';
import { isTestKey, spendOf } from './send-mode.js';
import type { CheckedRequest, SendEntry } from './send.types.js';
import type { ShortLinks } from '../links/short-links.service.js';
import type { NewShortLink } from '../links/short-link.store.js';
import type { Statement } from '../../database/statement.js';

/**
 * What a caller of the pipeline writes in the send's own transaction, from the recipients as the
 * pipeline decided them (their message ids, REJECTED or not): a verification's row, so the code's
 * message and its verification are stored together or not at all.
 */
export type Alongside = (entries: SendEntry[]) => Statement[];

/**
 * What the committer writes for a checked request: its send_requests row, a messages row per
 * recipient (each with its own text, units and cost; a REJECTED one costs nothing), the charge
 * and what counts toward the daily spend limits; with shorten_links, each recipient's own copy
 * of the text with new short links, and their rows.
 */
export function storedSend(
  p: CheckedRequest,
  auth: AuthContext,
  channel: Channel,
  at: {
    apiReference: string;
    createdAt: Date;
    priority: 'high' | 'normal';
    suppressionExempt: boolean;
    /** The Idempotency-Key the request holds (its claim id), if it came with one. */
    idempotencyClaim: string | null;
    /** The caller's rows written with the send, made from its recipients as they were decided. */
    alongside?: Alongside;
    /** The caller's read of what the send left, with its COMMIT where it can be. */
    afterCommit?: AfterCommit;
  },
  shortLinks: ShortLinks,
): PreparedSend {
  const { input, entries, accepted, plan, priced, schedule } = p;
  const { apiReference, createdAt } = at;
  const cost = priced.total;
  const links: NewShortLink[] = [];
  const bodyOf = (e: CheckedRequest['entries'][number], i: number): string | null => {
    const t = plan.texts[i];
    if (t?.links && e.status !== 'REJECTED') return shortLinks.stamp(t.links, e.messageId, createdAt, links);
    return t?.body ?? null;
  };
  const rows: NewMessageRow[] = entries.map((e, i) => ({
    id: e.messageId,
    uuid: e.uuid,
    recipient: e.recipient,
    status: e.status,
    reason: e.reason ?? null,
    units: e.status !== 'REJECTED' ? plan.texts[i]!.measure.units : 0,
    cost: e.status !== 'REJECTED' ? priced.costs[i]! : '0',
    body: bodyOf(e, i),
    subject: plan.texts[i]?.subject ?? null,
    sendAt: e.sendAt ?? null,
    fallbackDueAt:
      input.fallback && e.status !== 'REJECTED'
        ? fallbackDue(createdAt, e.sendAt ?? schedule.sendAt, input.fallback.afterSeconds)
        : null,
    fallbackOf: input.fallbackOf ?? null,
    smppCredentialId: input.smpp?.credentialId ?? null,
    smppRegisteredDelivery: input.smpp?.registeredDelivery ?? null,
  }));
  const waiting = accepted.filter((e) => e.status === 'SCHEDULED');
  return {
    request: {
      id: apiReference,
      accountId: auth.account.id,
      apiKeyId: auth.key.id,
      testMode: isTestKey(auth),
      suppressionExempt: at.suppressionExempt,
      channel,
      sender: input.sender,
      subject: input.subject ?? null,
      body: plan.body,
      replyTo: input.replyTo ?? null,
      source: input.source ?? null,
      callbackUrl: p.callbackUrl,
      userReferenceId: input.userReferenceId ?? null,
      requestHash: p.requestHash,
      recipientCount: entries.length,
      acceptedCount: accepted.length,
      unitsPerRecipient: priced.maxUnits,
      cost,
      currency: auth.account.currency,
      createdAt,
      sendAt: schedule.sendAt,
      dueAt: firstDue(waiting, schedule.sendAt, schedule.validUntil),
      validityPeriod: schedule.validityPeriod,
      validUntil: schedule.validUntil,
      // Nothing to queue until the first release (which queues), as for any scheduled send.
      enqueuedAt: waiting.length === accepted.length ? createdAt : null,
      priority: at.priority,
      fallback: input.fallback ?? null,
      sendWindow: p.ownWindow,
    },
    messages: {
      common: { sendRequestId: apiReference, accountId: auth.account.id, channel, createdAt },
      rows,
    },
    links,
    // A test request is priced and stored as a live one, but nothing is taken from the balance.
    charge: {
      accountId: auth.account.id,
      channel,
      amount: isTestKey(auth) ? '0' : cost,
      sendRequestId: apiReference,
    },
    spend: spendOf(auth, cost, createdAt),
    idempotencyClaim: at.idempotencyClaim,
    alongside: at.alongside?.(entries),
    afterCommit: at.afterCommit,
  };
}

/**
 * When the due scanner is first to look at the request: the earliest release among its waiting
 * messages (the request's send_at, or a message's own from its window), a message whose window
 * opens after the validity ends counting at that end (it is released then to expire); null
 * when none waits.
 */
export function firstDue(
  waiting: Array<{ sendAt?: Date }>,
  sendAt: Date | null,
  validUntil: Date,
): Date | null {
  let due: Date | null = null;
  for (const e of waiting) {
    const at = e.sendAt ? (e.sendAt < validUntil ? e.sendAt : validUntil) : sendAt;
    if (at && (!due || at < due)) due = at;
  }
  return due;
}

/** A fallback counts from acceptance, or from when the message is to go when that is later. */
function fallbackDue(createdAt: Date, sendAt: Date | null, afterSeconds: number): Date {
  const from = sendAt && sendAt > createdAt ? sendAt : createdAt;
  return new Date(from.getTime() + afterSeconds * 1000);
}
