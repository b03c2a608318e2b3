import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { RepeatLimiter } from '../../platform/logging/repeat-limiter.js';
import type { CallbackJob, InboundEventPayload } from '../callbacks/callback-job.js';
import { CallbackStore } from '../callbacks/callback.store.js';
import { WebhookFanOut, type PublishedEvent } from '../callbacks/webhooks/webhook-fan-out.service.js';
import type { InboundSms } from '../delivery/transports/transport.js';
import { MessageLookupStore } from '../messages/message-lookup.store.js';
import { normalisePhone } from '../messages/recipients.js';
import { inboundPdu } from '../smpp-server/receipts/receipt-pdu.js';
import { SmppReceiptStore } from '../smpp-server/receipts/smpp-receipt.store.js';
import { SuppressionStore, type ListOwner } from '../suppressions/suppression.store.js';
import { InboundNumberStore } from './inbound-number.store.js';
import { route, type Routing } from './inbound-router.js';
import { InboundStore, type InboundRow, type InboundSettings, type NewInbound } from './inbound.store.js';
import { optKeyword, words, type OptKeyword } from './keywords.js';

/** An inbound message answers the latest message its account sent to that number within this long. */
export const IN_REPLY_TO_WINDOW_MS = 7 * 24 * 3600_000;

export type InboundSource = 'smpp' | 'simulate' | 'test';

export interface Received {
  /** Stored rows, one per receiving account (several only for STOP to a shared code). */
  rows: InboundRow[];
  /** Webhook events kept in the outbox, to be queued by whoever can. */
  webhooks: CallbackJob[];
  /** A part stored while the others are awaited. */
  partial: boolean;
  /** No account has the number (or keyword): acknowledged and dropped. */
  unrouted: boolean;
}

function replyFor(settings: InboundSettings | undefined, opt: OptKeyword | null): string | null {
  if (!settings || !opt) return null;
  return { STOP: settings.reply_on_stop, START: settings.reply_on_start, HELP: settings.reply_on_help }[opt];
}

/** Phone numbers as the send pipeline writes recipients (bare digits); anything else trimmed. */
function address(raw: string): string {
  const check = normalisePhone(raw);
  return (check.ok ? check.value : raw.trim().replace(/^\+/, '')).slice(0, 32);
}

/**
 * The one path of an inbound SMS, wherever it comes from (an SMSC's deliver_sm, `inbound
 * simulate`): reassemble parts, find the account(s), store the message with `in_reply_to`, apply
 * STOP / START to the suppression list, keep a deliver_sm for each live SMPP credential of the
 * account (of the message's mode), and keep the webhook events, all before the SMSC is answered. It needs MySQL only: queuing the webhooks and sending the auto-replies is
 * InboundService's (in a process with queues), or the recovery sweep's.
 */
@Injectable()
export class InboundReceiver {
  private readonly logger = new Logger('Inbound');
  private readonly warnings = new RepeatLimiter(this.logger);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly ds: DataSource,
    private readonly callbacks: CallbackStore,
    private readonly numbers: InboundNumberStore,
    private readonly store: InboundStore,
    private readonly messages: MessageLookupStore,
    private readonly suppressions: SuppressionStore,
    private readonly smppOutbox: SmppReceiptStore,
    private readonly fanOut: WebhookFanOut,
  ) {}

  async receive(sms: InboundSms, given: InboundSource): Promise<Received> {
    const from = address(sms.from);
    const to = address(sms.to);
    const receivedAt = new Date();
    const testMode = sms.test !== undefined;
    const source: InboundSource = testMode ? 'test' : given;
    const routes = testMode ? [] : await this.numbers.routes(to);
    // A message from one of the service's own numbers may be another account's auto-reply.
    const fromOwnNumber = !testMode && (await this.numbers.routes(from)).length > 0;

    const uuids: string[] = [];
    let partial = false;
    let unrouted = false;
    let settings = new Map<string, InboundSettings>();
    await this.ds.transaction(async (em) => {
      let text = sms.text;
      if (sms.concat) {
        const whole = await this.store.addPart(em, { from, to, ...sms.concat }, sms.concat.seq, sms.text);
        if (whole === null) {
          partial = true;
          return;
        }
        text = whole;
      }
      const routing = sms.test ? testRouting(sms.test.accountId, text) : route(routes, text);
      if (!routing) {
        unrouted = true;
        return;
      }
      settings = await this.store.settings(routing.accountIds);
      const since = new Date(receivedAt.getTime() - IN_REPLY_TO_WINDOW_MS);
      const rows: NewInbound[] = [];
      for (const accountId of routing.accountIds) {
        const owner = { accountId, testMode };
        const previous = await this.messages.latestAcceptedTo(accountId, 'sms', from, since, testMode);
        // Only a number can be suppressed for SMS (an alphanumeric sender cannot be written to).
        let newlySuppressed = false;
        if (normalisePhone(from).ok) {
          if (routing.opt === 'STOP')
            newlySuppressed = (await this.suppressions.add(owner, 'sms', [from], 'STOP_KEYWORD', em)) > 0;
          else if (routing.opt === 'START')
            await this.suppressions.remove(owner, 'sms', [from], 'STOP_KEYWORD', em);
        }
        const replyText =
          fromOwnNumber || testMode
            ? null
            : await this.replyText(em, owner, from, routing.opt, settings.get(accountId), {
                newlySuppressed,
                receivedAt,
              });
        rows.push({
          uuid: randomUUID(),
          accountId,
          testMode,
          from,
          to,
          text,
          keyword: routing.keyword,
          inReplyTo: previous?.uuid ?? null,
          source,
          replyText,
          receivedAt,
        });
      }
      await this.store.insert(em, rows);
      // In the same transaction: what is stored owes its deliver_sm to the account's SMPP receivers.
      await this.smppOutbox.addInbound(
        em,
        rows.map((r) => ({
          accountId: r.accountId,
          testMode: r.testMode,
          pdu: inboundPdu(r.from, r.to, r.text),
        })),
      );
      uuids.push(...rows.map((r) => r.uuid));
    });
    if (unrouted)
      this.warnings.warn(
        `inbound message to ${to} dropped: no account has that number or keyword`,
        'unrouted',
      );
    const rows = await this.store.byUuids(uuids);
    const webhooks = rows.flatMap((row) => {
      const url = settings.get(String(row.account_id))?.inbound_url;
      return url ? [webhookJob(row, url)] : [];
    });
    // The subscribed endpoints' inbound.received events go on the same outbox, kept with them.
    webhooks.push(
      ...(await this.fanOut.prepare(rows.map((row) => inboundReceivedEvent(row))).catch((err: Error) => {
        this.warnings.warn(`inbound.received event(s) not logged: ${err.message}`, 'webhooks');
        return [];
      })),
    );
    // The message is stored: failing now would have the SMSC send it again (stored twice). A
    // process with queues queues the events next (CallbackOutbox keeps them then, too).
    if (webhooks.length)
      await this.callbacks
        .keep(webhooks)
        .catch((err: Error) =>
          this.warnings.warn(`inbound webhook event(s) not kept in the outbox: ${err.message}`, 'keep'),
        );
    return { rows, webhooks, partial, unrouted };
  }

  /**
   * The auto-reply an inbound message gets, if any, under the rules that keep replies from being
   * pumped: a STOP is confirmed only when it suppressed the sender just now (a repeated STOP
   * costs nothing), and each keyword is answered at most once per AUTO_REPLY_REPEAT_AFTER per
   * sender and side of the account, STOP included: otherwise STOP, START, STOP… would have
   * one charged confirmation for every two messages. (The caller sends none to a test
   * recipient's reply, nor to a message from one of the service's own numbers: either may
   * itself be an auto-reply.)
   */
  private async replyText(
    em: EntityManager,
    owner: ListOwner,
    from: string,
    opt: OptKeyword | null,
    settings: InboundSettings | undefined,
    at: { newlySuppressed: boolean; receivedAt: Date },
  ): Promise<string | null> {
    const text = replyFor(settings, opt);
    if (!text || !opt) return null;
    if (opt === 'STOP' && !at.newlySuppressed) return null;
    const since = new Date(at.receivedAt.getTime() - this.config.autoReplyRepeatAfterMs);
    return (await this.store.repliedSince(em, owner, from, opt, since)) ? null : text;
  }
}

/** A test recipient's reply goes to the account whose test message it answers, keywords as ever. */
function testRouting(accountId: string, text: string): Routing {
  const opt = optKeyword(words(text, 1)[0]);
  return { accountIds: [accountId], opt, keyword: opt };
}

/** The inbound webhook event: signed, retried and guarded exactly as delivery callbacks. */
export function webhookJob(row: InboundRow, url: string): CallbackJob {
  const eventId = randomUUID();
  return {
    eventId,
    url,
    accountId: String(row.account_id),
    messageRowId: String(row.id),
    eventType: 'inbound',
    payload: inboundPayload(row, eventId),
  };
}

/** The inbound.received event for subscribed endpoints: its data is the inbound webhook's body. */
function inboundReceivedEvent(row: InboundRow): PublishedEvent {
  const eventId = randomUUID();
  return {
    accountId: String(row.account_id),
    type: 'inbound.received',
    data: inboundPayload(row, eventId),
    test: Boolean(row.test_mode),
    occurredAt: row.received_at,
    eventId,
    subjectRowId: String(row.id),
  };
}

function inboundPayload(row: InboundRow, eventId: string): InboundEventPayload {
  return {
    event_id: eventId,
    type: 'inbound.sms' as const,
    inbound_id: row.uuid,
    from: row.sender,
    to: row.recipient,
    text: row.text,
    keyword: row.keyword,
    received_at: row.received_at.toISOString(),
    in_reply_to: row.in_reply_to,
    test: Boolean(row.test_mode),
  };
}
