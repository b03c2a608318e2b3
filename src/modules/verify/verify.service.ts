import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { AppException } from '../../platform/errors/app.exception.js';
import { sideOf, type AuthContext } from '../api-keys/auth/auth-context.js';
import { CapFull, PumpingGuard, type Admitted } from '../fraud/pumping/pumping.guard.js';
import type { Channel } from '../messages/channel.js';
import { countryOfNumber } from '../messages/windows/recipient-zone.js';
import { invalidNumberMessage } from '../messages/recipients.js';
import { ChatPolicy } from '../sending/channels/chat/chat.policy.js';
import { EmailPolicy } from '../sending/channels/email/email.policy.js';
import { SmsPolicy } from '../sending/channels/sms/sms.policy.js';
import type { ChannelPolicy } from '../sending/channel-policy.js';
import { isTestKey } from '../sending/send-mode.js';
import { SendService } from '../sending/send.service.js';
import type { SendEntry } from '../sending/send.types.js';
import type { Alongside } from '../sending/stored-send.js';
import type { AfterCommit } from '../sending/send.committer.js';
import type { Statement } from '../../database/statement.js';
import { TemplatesService } from '../templates/templates.service.js';
import { codeDigest, newCode } from './verification-code.js';
import { VerificationConversions } from './verification-conversion.cache.js';
import { VerificationOutcomes } from './verification-outcomes.service.js';
import { VerificationRate, waitAfter } from './verification-rate.limiter.js';
import { maskedText, verificationText } from './verification-text.js';
import {
  pendingTo,
  VerificationStore,
  verificationInsert,
  type VerificationOutcome,
  type VerificationOwner,
} from './verification.store.js';
import { VerifyMetrics } from './verify.metrics.js';
import { VERIFY_REFERENCE_PREFIX } from './verify-reference.js';

/** A verification start as the controller reads it. */
export interface VerifyStart {
  to: string;
  channel: Channel;
  from?: string;
  codeLength: number;
  ttlSeconds: number;
  templateId?: string;
  message?: string;
}

export interface Started {
  id: string;
  to: string;
  channel: Channel;
  expiresAt: Date;
  messageId: string;
  /** Test keys only: the code, since nothing is sent where it could be read. */
  testCode?: string;
}

/** The sender an SMS code goes from when the start names none. */
export const DEFAULT_SMS_SENDER = 'Verify';
/** Where no country is known (e-mail, a number of no known calling code). */
const NO_COUNTRY = 'ZZ';

/**
 * Starts a verification: checks the recipient and text, the per-number cap and the pumping
 * guard, then sends the code through the one send pipeline (priced, charged, routed,
 * suppressed, limited like any send, as a high-priority message), which stores the
 * verification (the code's keyed digest, never the code) in the transaction of its message.
 */
@Injectable()
export class VerifyService {
  private readonly policies: Record<Channel, ChannelPolicy>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly store: VerificationStore,
    private readonly rate: VerificationRate,
    private readonly pumping: PumpingGuard,
    private readonly sends: SendService,
    private readonly templates: TemplatesService,
    private readonly outcomes: VerificationOutcomes,
    private readonly conversions: VerificationConversions,
    private readonly metrics: VerifyMetrics,
    sms: SmsPolicy,
    email: EmailPolicy,
    chat: ChatPolicy,
  ) {
    this.policies = { sms, email, chat };
  }

  async start(auth: AuthContext, input: VerifyStart): Promise<Started> {
    const { channel } = input;
    const policy = this.policies[channel];
    const checked = policy.normaliseRecipient(input.to);
    if (!checked.ok)
      throw rejected(
        checked.reason,
        checked.reason === 'INVALID_NUMBER' ? invalidNumberMessage(input.to) : checked.reason,
      );
    const to = checked.value;
    const template = input.templateId
      ? await this.templates.lookup(sideOf(auth), input.templateId)
      : undefined;
    if (input.templateId && !template)
      throw new AppException('NOT_FOUND', `Template ${input.templateId} not found.`, [
        { field: 'template_id', message: 'not found' },
      ]);
    const text = verificationText(channel, input.message, template, input.templateId);
    const sender = input.from ?? (channel === 'sms' ? DEFAULT_SMS_SENDER : undefined);
    if (sender === undefined)
      throw AppException.validation(
        [{ field: 'from', message: `required for ${channel}` }],
        `A verification by ${channel} needs from (the ${channel === 'email' ? 'sender address' : 'business number'}).`,
      );

    const owner: VerificationOwner = sideOf(auth);
    const id = randomUUID();
    const now = new Date();
    // E-mail has no pumping guard: its cap is taken alone. Other channels' cap is taken in the
    // guard's own call to Redis, below.
    if (channel === 'email') {
      const wait = await this.rate.take(owner, to, id, now.getTime());
      if (wait > 0) throw tooMany(wait);
    }
    const country = channel === 'email' ? NO_COUNTRY : (countryOfNumber(to) ?? NO_COUNTRY);
    let admitted: Admitted | null = null;
    let capped = false;
    const code = newCode(input.codeLength);
    const expiresAt = new Date(now.getTime() + input.ttlSeconds * 1000);
    const maskedBody = maskedText(text.body);
    // The verification's row is written in the send's own transaction, with its message.
    const verification = (entries: SendEntry[]): Statement[] => {
      const e = entries[0];
      if (!e || e.status === 'REJECTED') return [];
      return [
        verificationInsert(owner, {
          id,
          channel,
          recipient: to,
          country,
          codeHash: codeDigest(this.config.serverSecret, id, code),
          expiresAt,
          createdAt: now,
          message: { id: e.messageId, publicId: publicId(channel, e), maskedBody },
        }),
      ];
    };
    // The pending ones to the number, read with the send's COMMIT when the send is written with others.
    let pending: VerificationOutcome[] | undefined;
    const afterCommit: AfterCommit = {
      statement: pendingTo(owner, to),
      read: (rows) => (pending = rows as VerificationOutcome[]),
    };
    let entry: SendEntry;
    try {
      if (channel !== 'email')
        admitted = await this.pumping
          .admit(
            {
              scope: owner,
              number: to,
              source: 'verification',
              conversion: (c) => this.conversions.of(owner, c, now),
              cap: this.rate.place(owner, to, id),
            },
            now.getTime(),
          )
          .catch((err: unknown) => {
            if (!(err instanceof CapFull)) throw err;
            // The cap was full: nothing was taken or counted, nothing to give back.
            capped = true;
            throw tooMany(waitAfter(err.oldestAt, now.getTime()));
          });
      entry = await this.send(policy, auth, id, to, sender, text, code, verification, afterCommit);
    } catch (err) {
      // Nothing went out: the start leaves no verification, no place in the cap and no count.
      if (!capped) await Promise.allSettled([this.rate.giveBack(owner, to, id), admitted?.release()]);
      throw err;
    }
    // The code is on its way: from here on the verification stays, whatever fails.
    for (const old of await this.store.keepNewest(owner, to, new Date(), pending)) this.outcomes.closed(old);
    this.metrics.count(country, 'pending');
    return {
      id,
      to,
      channel,
      expiresAt,
      messageId: publicId(channel, entry),
      ...(isTestKey(auth) ? { testCode: code } : {}),
    };
  }

  /** Sends the code to its one recipient; a recipient the pipeline refuses is a 422 naming `to`. */
  private async send(
    policy: ChannelPolicy,
    auth: AuthContext,
    id: string,
    to: string,
    sender: string,
    text: { body: string; subject: string | null },
    code: string,
    verification: Alongside,
    afterCommit: AfterCommit,
  ): Promise<SendEntry> {
    let outcome;
    try {
      outcome = await this.sends.send(
        policy,
        auth,
        {
          sender,
          recipients: [to],
          body: text.body,
          subject: text.subject,
          // The code reaches the text as a personalisation value: the request's stored text keeps
          // the {{code}} placeholder, and only the message's own text holds the code until hand-over.
          variables: { [to]: { code } },
          userReferenceId: `${VERIFY_REFERENCE_PREFIX}${id}`,
          priority: 'high',
        },
        undefined,
        verification,
        afterCommit,
      );
    } catch (err) {
      // No recipient accepted: the pipeline's 400 names the recipient's reason.
      if (err instanceof AppException && err.code === 'VALIDATION_ERROR') {
        const reason = err.details.find((d) => d.field.startsWith(`${policy.recipientField}[`));
        if (reason) throw rejected(reason.message);
      }
      throw err;
    }
    const entry = outcome.entries[0]!;
    if (entry.status === 'REJECTED') throw rejected(entry.reason ?? 'REJECTED');
    return entry;
  }
}

/** The per-number cap's refusal, `waitMs` before a place frees. */
function tooMany(waitMs: number): AppException {
  const seconds = Math.ceil(waitMs / 1000);
  return new AppException(
    'TOO_MANY_VERIFICATIONS',
    `5 verifications were started for this number in the last 10 minutes; retry after ${seconds} s.`,
    [{ field: 'to', message: 'at most 5 per 10 minutes' }],
    { 'Retry-After': String(seconds) },
  );
}

/** The recipient refused: the reason code in the message, the detail saying more where it can. */
function rejected(reason: string, detail = reason): AppException {
  return new AppException('RECIPIENT_REJECTED', `The code cannot be sent to this recipient: ${reason}.`, [
    { field: 'to', message: detail },
  ]);
}

/** The message id a client looks the message up by: e-mail's numeric id, the others' UUID. */
function publicId(channel: Channel, e: SendEntry): string {
  return channel === 'email' ? e.messageId : e.uuid;
}
