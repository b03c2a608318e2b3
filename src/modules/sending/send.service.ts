import { Inject, Injectable } from '@nestjs/common';
import type { AuthContext } from '../api-keys/auth/auth-context.js';
import { AppException } from '../../platform/errors/app.exception.js';
import type { ErrorDetail } from '../../platform/errors/error-codes.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { BalanceService } from '../balance/balance.service.js';
import { InsufficientBalance } from '../balance/ledger.store.js';
import { DispatchProducer, waitingChunks } from '../delivery/dispatch/dispatch.producer.js';
import { WebhookEvents } from '../callbacks/webhooks/webhook-events.service.js';
import { MessageStore } from '../messages/message.store.js';
import type { ReplayRequest } from '../messages/message.types.js';
import { SuppressionCheck } from '../suppressions/suppression-check.service.js';
import { SuppressionMetrics } from '../suppressions/suppressions.metrics.js';
import { checkCallbackUrl } from '../callbacks/callback-url.js';
import type { ChannelPolicy, SendInput } from './channel-policy.js';
import type { Channel } from '../messages/channel.js';
import { IdGenerator } from './id.generator.js';
import { listRecipients } from './recipient-list.js';
import { DuplicateReference, SendAlreadyMade, SendCommitter } from './send.committer.js';
import { IdempotencyStore, type Claim } from '../idempotency/idempotency.store.js';
import { resolveSchedule } from '../messages/schedule.js';
import { invalidNumberHint } from '../messages/recipients.js';
import { SpendLimitExceeded } from '../balance/spend-limits.service.js';
import { isTestKey, spendLimitRefusal } from './send-mode.js';
import { planTexts } from './personalisation/text-plan.js';
import { priceTexts } from './personalisation/entry-pricing.js';
import { TemplateInput } from './personalisation/template-input.service.js';
import { requestHash } from './request-hash.js';
import type { CheckedRequest, SendOutcome, SendPreview } from './send.types.js';
import { storedSend } from './stored-send.js';
import { refuseAccepted, storedRefusal, storesRefused } from './stored-refusals.js';
import { TestQuota } from './test-quota.service.js';
import { TariffService } from './tariff.service.js';
import { SendingMetrics } from './sending.metrics.js';
import { ShortLinks } from '../links/short-links.service.js';
import { familyRoot } from '../accounts/family.js';
import { deferToWindow } from '../messages/windows/window-deferral.js';
import { windowOfSend } from '../messages/windows/window-of-send.js';
import { CountryCheck } from '../fraud/countries/country-check.service.js';

/**
 * The one send pipeline for every channel: normalise recipients, price, store the request,
 * its messages and the charge in ONE transaction, then enqueue dispatch jobs.
 */
@Injectable()
export class SendService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly ids: IdGenerator,
    private readonly balances: BalanceService,
    private readonly dispatch: DispatchProducer,
    private readonly committer: SendCommitter,
    private readonly store: MessageStore,
    @Inject(SuppressionMetrics) private readonly suppressionMetrics: SuppressionMetrics,
    private readonly sendingMetrics: SendingMetrics,
    private readonly tariffs: TariffService,
    private readonly templates: TemplateInput,
    private readonly suppressions: SuppressionCheck,
    private readonly idempotency: IdempotencyStore,
    private readonly testQuota: TestQuota,
    private readonly countries: CountryCheck,
    private readonly webhooks: WebhookEvents,
    private readonly shortLinks: ShortLinks,
  ) {}

  /** `claim`: the Idempotency-Key the request holds, if it came with one (IdempotencyGuard). */
  async send(
    policy: ChannelPolicy,
    auth: AuthContext,
    input: SendInput,
    claim?: Claim,
  ): Promise<SendOutcome> {
    const { channel } = policy;
    const p = await this.prepare(policy, auth, input);
    const priority = p.input.priority ?? auth.key.priority ?? 'normal';
    const apiReference = this.ids.next();
    const createdAt = new Date();
    // Test keys cost nothing, so their volume is capped per account and day instead.
    const quota = isTestKey(auth)
      ? await this.testQuota.take(familyRoot(auth.account), p.accepted.length)
      : null;
    const stored = () =>
      storedSend(
        p,
        auth,
        channel,
        {
          apiReference,
          createdAt,
          priority,
          suppressionExempt: input.ignoreSuppressions === true,
          idempotencyClaim: claim?.id ?? null,
        },
        this.shortLinks,
      );

    try {
      await this.committer.commit(stored()).catch(async (err: unknown) => {
        // A fallback SMS the balance or a limit refuses is stored REJECTED with that reason (an SMPP submit a limit refuses too).
        const refusal = storedRefusal(input, err);
        if (!refusal) throw err;
        refuseAccepted(p, refusal);
        await this.committer.commit(stored());
      });
    } catch (err) {
      if (quota) await this.testQuota.giveBack(quota);
      if (err instanceof DuplicateReference) {
        const first = await this.replay(auth, channel, p.input.userReferenceId!, p.requestHash);
        return { ...first, replaced: p.plan.replaced };
      }
      // An earlier attempt under this Idempotency-Key made the send, and its answer was never kept.
      if (err instanceof SendAlreadyMade) {
        const made = await this.idempotency.linkedSend(claim!.id);
        const req = made ? await this.store.findReplayById(made) : undefined;
        if (!req) throw new Error('send tied to the Idempotency-Key not found');
        return { ...(await this.answerAgain(req, channel)), replaced: p.plan.replaced };
      }
      if (err instanceof InsufficientBalance) {
        throw new AppException(
          'INSUFFICIENT_BALANCE',
          `The ${channel} balance cannot pay for this request: it costs ${err.needed} ${auth.account.currency}, the balance is ${err.available}.`,
          [{ field: 'balance', message: `needed ${err.needed}, available ${err.available}` }],
        );
      }
      if (err instanceof SpendLimitExceeded) {
        this.sendingMetrics.spendLimitRefused(err.scope);
        throw spendLimitRefusal(err, p.priced.total, auth.account.currency);
      }
      throw err;
    }

    const { entries, accepted, plan, priced, schedule, deferred } = p;
    await this.webhooks.accepted({
      accountId: auth.account.id,
      test: isTestKey(auth),
      channel,
      apiReference,
      userReferenceId: p.input.userReferenceId ?? null,
      at: createdAt,
      entries,
    });
    const cost = priced.total;
    const unitsPerRecipient = priced.maxUnits;
    this.sendingMetrics.sendCommitted(channel, accepted.length, entries.length - accepted.length);
    if (isTestKey(auth)) this.sendingMetrics.testRequestAccepted(channel);
    if (deferred) this.sendingMetrics.windowDeferred(channel, deferred);
    if (accepted.length === 0) {
      // Nothing to send (a fallback SMS stored REJECTED).
    } else if (!schedule.sendAt && deferred === 0)
      await this.dispatch.enqueue(
        channel,
        apiReference,
        accepted.map((e) => e.messageId),
        priority,
        isTestKey(auth),
      );
    // Some wait for their window: the others go now, in the chunks the due scanner and the
    // recovery sweep cut (by place among the request's accepted messages).
    else if (!schedule.sendAt && deferred < accepted.length)
      await this.dispatch.enqueueChunks(
        channel,
        apiReference,
        waitingChunks(accepted.map((e) => ({ id: e.messageId, status: e.status }))),
        priority,
        isTestKey(auth),
      );
    return {
      apiReference,
      channel,
      entries: entries.map(({ messageId, uuid, recipient, status, reason, sendAt }) => ({
        messageId,
        uuid,
        recipient,
        status,
        reason,
        sendAt,
      })),
      acceptedCount: accepted.length,
      unitsPerRecipient,
      cost,
      currency: auth.account.currency,
      createdAt,
      replayed: false,
      sendAt: schedule.sendAt?.toISOString() ?? null,
      priority,
      replaced: plan.replaced,
    };
  }

  /**
   * The send without its last steps: the same checks, texts and prices as `send`, then the
   * balance it would be paid from. Nothing is stored, charged or queued.
   */
  async preview(policy: ChannelPolicy, auth: AuthContext, input: SendInput): Promise<SendPreview> {
    const p = await this.prepare(policy, auth, input);
    const { balance } = await this.balances.channel(auth.account.id, policy.channel);
    return {
      entries: p.entries.map((e, i) => ({
        recipient: e.recipient,
        status: e.status,
        reason: e.reason,
        measure: p.plan.measures[i],
        cost: p.priced.costs[i] ?? '0',
        sendAt: e.status === 'SCHEDULED' ? (e.sendAt ?? p.schedule.sendAt ?? undefined) : undefined,
      })),
      acceptedCount: p.accepted.length,
      cost: p.priced.total,
      currency: auth.account.currency,
      balance,
      replaced: p.plan.replaced,
      nonGsmCharacters: p.plan.nonGsmCharacters,
    };
  }

  /** Everything before the transaction: limits, channel checks, recipients, each recipient's text and price. */
  private async prepare(policy: ChannelPolicy, auth: AuthContext, raw: SendInput): Promise<CheckedRequest> {
    const test = isTestKey(auth);
    const max = test
      ? Math.min(this.config.maxRecipients, this.config.testTraffic.maxRecipients)
      : this.config.maxRecipients;
    if (raw.recipients.length > max) {
      throw new AppException(
        'TOO_MANY_RECIPIENTS',
        `A request${test ? ' made with a test key' : ''} may name at most ${max} recipients; this one names ${raw.recipients.length}.`,
        [{ field: policy.recipientField, message: `at most ${max} recipients` }],
      );
    }
    // Only a send that names a template awaits it (docs/performance.md#promises).
    const input = raw.templateId ? await this.templates.apply(auth, policy.channel, raw) : raw;
    policy.validate(input);
    // Refused before anything else is looked at when the service has no address for short links.
    const shorten = input.shortenLinks ? this.shortLinks.shortener() : null;
    const now = new Date();
    const schedule = resolveSchedule(input, now, this.config.defaultValidityPeriod);
    const window = windowOfSend(input.sendWindow, auth.account);
    const callbackUrl = input.callbackUrl
      ? checkCallbackUrl(
          input.callbackUrl,
          this.config.callbackAllowPrivateNetworks,
          this.config.callbackHttpsOnly,
        )
      : null;

    const listed = listRecipients(policy, input.recipients, () => this.ids.next());
    // Only a request long enough to be listed in several tasks is awaited.
    const entries = Array.isArray(listed) ? listed : await listed;
    if (!raw.ignoreSuppressions) {
      const suppressed = await this.suppressions.apply(
        { accountId: auth.account.id, testMode: test },
        policy.channel,
        entries,
      );
      if (suppressed) this.suppressionMetrics.refused(policy.channel, suppressed);
    }
    // Numbers of a country the account may not reach (COUNTRY_NOT_ALLOWED), and premium-rate
    // numbers it has not been allowed (PREMIUM_NUMBER), are refused here, before anything is charged.
    const refused = this.countries.apply(auth.account.id, policy.channel, entries);
    if (refused) await refused;
    // Unroutable SMS recipients become REJECTED (NO_ROUTE) here, before anything is charged;
    // each recipient's price per unit is its destination's (longest prefix), else the channel's.
    const known = this.tariffs.of(auth.account.id, policy.channel);
    const tariff = known instanceof Promise ? await known : known;
    tariff.rejectUnroutable(entries);
    const unitPrices = tariff.unitPrices(entries);
    // An SMS matter only: e-mail and chat carry any character at the same price.
    const smartEncoding =
      policy.channel === 'sms' && (input.smartEncoding ?? auth.account.smartEncoding ?? false);
    const plan = planTexts(policy, input, entries, smartEncoding, shorten);
    const accepted = entries.filter((e) => e.status === 'ACKNOWLEDGED');
    // Accepted messages of a scheduled send wait as SCHEDULED; the due scanner releases them.
    if (schedule.sendAt) for (const e of accepted) e.status = 'SCHEDULED';
    // Those whose send window is closed then wait for it to open, SCHEDULED with their own send_at.
    const deferred = window
      ? deferToWindow(
          accepted,
          policy.channel,
          window,
          auth.account.timeZone ?? 'UTC',
          schedule.sendAt ?? now,
        )
      : 0;
    // A fallback SMS is stored whatever becomes of its recipient, so its chat message shows it (and an SMPP submit to a valid number).
    if (accepted.length === 0 && !storesRefused(input, entries)) {
      const details: ErrorDetail[] = input.recipients.length
        ? entries.map((e) => {
            const hint = e.reason === 'INVALID_NUMBER' ? invalidNumberHint(e.recipient) : undefined;
            return {
              field: `${policy.recipientField}[${e.index}]`,
              message: hint ? `INVALID_NUMBER: ${hint}` : (e.reason ?? 'invalid'),
            };
          })
        : [{ field: policy.recipientField, message: 'at least one recipient is required' }];
      throw AppException.validation(details.slice(0, 100), 'No valid recipient in the request.');
    }
    const priced = priceTexts(unitPrices, plan.texts);
    const hash = requestHash(policy.channel, input, callbackUrl, smartEncoding);
    // The account's status-callback URL serves a request that names none; it is the request's
    // own choice, not the account's, that makes a repeat the same request.
    const events = callbackUrl ?? auth.account.statusCallbackUrl ?? null;
    return {
      input,
      callbackUrl: events,
      entries,
      accepted,
      plan,
      priced,
      requestHash: hash,
      schedule,
      deferred,
      ownWindow: input.sendWindow != null ? window : null,
    };
  }

  /** The same body gets the first answer again; a different one is a conflict. */
  private async replay(
    auth: AuthContext,
    channel: Channel,
    userReferenceId: string,
    requestHash: Buffer,
  ): Promise<SendOutcome> {
    const req = await this.store.findReplay(auth.account.id, channel, userReferenceId, isTestKey(auth));
    if (!req) throw new Error('duplicate reference reported but no request found');
    if (!req.request_hash.equals(requestHash)) {
      throw new AppException(
        'DUPLICATE_REFERENCE',
        `user_reference_id ${JSON.stringify(userReferenceId)} was already used for a different ${channel} request (api_reference ${req.id}).`,
        [{ field: 'user_reference_id', message: 'already used with a different body' }],
      );
    }
    return this.answerAgain(req, channel);
  }

  /** The first answer of a stored request, rebuilt from its rows. */
  private async answerAgain(req: ReplayRequest, channel: Channel): Promise<SendOutcome> {
    const messages = await this.store.acceptedAnswer(String(req.id));
    return {
      apiReference: req.id,
      channel,
      // The first answer said ACKNOWLEDGED (SCHEDULED) for every charged message and REJECTED for the rest.
      entries: messages.map((m) => ({
        messageId: m.id,
        uuid: m.uuid,
        recipient: m.recipient,
        status: m.units > 0 ? (req.send_at || m.send_at ? 'SCHEDULED' : 'ACKNOWLEDGED') : 'REJECTED',
        reason: m.units > 0 ? undefined : (m.reason ?? undefined),
        sendAt: m.units > 0 ? (m.send_at ?? undefined) : undefined,
      })),
      acceptedCount: req.accepted_count,
      unitsPerRecipient: req.units_per_recipient,
      cost: req.cost,
      currency: req.currency,
      createdAt: req.created_at,
      replayed: true,
      sendAt: req.send_at?.toISOString() ?? null,
      priority: req.priority,
      replaced: null,
    };
  }
}
