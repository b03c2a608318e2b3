import { Inject, Injectable } from '@nestjs/common';
import type { AuthContext } from '../api-keys/auth/auth-context.js';
import { AppException } from '../../platform/errors/app.exception.js';
import type { ErrorDetail } from '../../platform/errors/error-codes.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { SuppressionCheck } from '../suppressions/suppression-check.service.js';
import { SuppressionMetrics } from '../suppressions/suppressions.metrics.js';
import { checkCallbackUrl } from '../callbacks/callback-url.js';
import type { ChannelPolicy, SendInput } from './channel-policy.js';
import { IdGenerator } from './id.generator.js';
import { listRecipients } from './recipient-list.js';
import { resolveSchedule } from '../messages/schedule.js';
import { invalidNumberMessage } from '../messages/recipients.js';
import { isTestKey } from './send-mode.js';
import { planTexts } from './personalisation/text-plan.js';
import { priceTexts } from './personalisation/entry-pricing.js';
import { TemplateInput } from './personalisation/template-input.service.js';
import { requestHash } from './request-hash.js';
import type { CheckedRequest } from './send.types.js';
import { storesRefused } from './stored-refusals.js';
import { TariffService } from './tariff.service.js';
import { ShortLinks } from '../links/short-links.service.js';
import { deferToWindow } from '../messages/windows/window-deferral.js';
import { windowOfSend } from '../messages/windows/window-of-send.js';
import { CountryCheck } from '../fraud/countries/country-check.service.js';

/**
 * Everything a send does before its transaction, shared by the send and its preview: limits,
 * the channel's checks, recipients (suppressed, of a country not allowed, unroutable), each
 * recipient's text and price, the schedule and the send window.
 */
@Injectable()
export class SendPreparation {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly ids: IdGenerator,
    @Inject(SuppressionMetrics) private readonly suppressionMetrics: SuppressionMetrics,
    private readonly tariffs: TariffService,
    private readonly templates: TemplateInput,
    private readonly suppressions: SuppressionCheck,
    private readonly countries: CountryCheck,
    private readonly shortLinks: ShortLinks,
  ) {}

  /** Limits, channel checks, recipients, each recipient's text and price; nothing stored. */
  async prepare(policy: ChannelPolicy, auth: AuthContext, raw: SendInput): Promise<CheckedRequest> {
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
        ? entries.map((e) => ({
            field: `${policy.recipientField}[${e.index}]`,
            message:
              e.reason === 'INVALID_NUMBER' ? invalidNumberMessage(e.recipient) : (e.reason ?? 'invalid'),
          }))
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
}
