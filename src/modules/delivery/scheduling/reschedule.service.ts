import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import type { Account } from '../../accounts/account.entity.js';
import { sideOf, type AuthContext } from '../../api-keys/auth/auth-context.js';
import { AppException } from '../../../platform/errors/app.exception.js';
import type { ErrorDetail } from '../../../platform/errors/error-codes.js';
import { ScheduleStore, type WaitingRecipient } from '../../messages/schedule.store.js';
import type { Channel } from '../../messages/channel.js';
import { parseSendAt, validUntilOf } from '../../messages/schedule.js';
import { deferToWindow } from '../../messages/windows/window-deferral.js';
import { windowOfSend } from '../../messages/windows/window-of-send.js';

export interface RescheduleAnswer {
  api_reference: string;
  rescheduled: number;
  send_at: string;
}

/**
 * Moves the messages of a request that are still SCHEDULED, under the send_at rules of a send
 * (a time past or under 5 s ahead means now: the due scanner takes them at its next poll), and
 * the send window rule of acceptance applied from the new time: the request's own window, else
 * the account's. The validity period is counted again from the later of the new send_at and
 * acceptance.
 */
@Injectable()
export class RescheduleService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly schedules: ScheduleStore,
  ) {}

  async reschedule(auth: AuthContext, apiReference: string, rawSendAt: unknown): Promise<RescheduleAnswer> {
    const side = sideOf(auth);
    const request = /^\d{1,20}$/.test(apiReference)
      ? await this.schedules.findOwnedRequest(side.accountId, apiReference, side.testMode)
      : undefined;
    if (!request) throw new AppException('NOT_FOUND', 'No such request.');
    const problems: ErrorDetail[] = [];
    const now = new Date();
    if (rawSendAt === undefined || rawSendAt === null || rawSendAt === '')
      problems.push({ field: 'send_at', message: 'send_at is required' });
    const sendAt = problems.length ? null : parseSendAt(rawSendAt, now, problems);
    if (problems.length) throw AppException.validation(problems);
    const at = sendAt ?? now;
    const validity = request.validity_period ?? this.config.defaultValidityPeriod;
    const moved = await this.schedules.reschedule(
      apiReference,
      { sendAt: at, validUntil: validUntilOf(at, new Date(request.created_at), validity) },
      (waiting) => windowPlaces(waiting, request.channel, request.send_window, auth.account, at),
    );
    if (moved === 0) {
      throw new AppException(
        'NOT_RESCHEDULABLE',
        `No message of request ${apiReference} is still SCHEDULED: there is nothing to reschedule.`,
      );
    }
    return { api_reference: apiReference, rescheduled: moved, send_at: at.toISOString() };
  }
}

/**
 * Each waiting message's own release time under the window a send would keep (the request's
 * stored one, else the account's): its window's next opening when that is closed at `at`, else
 * null (it goes at `at`).
 */
function windowPlaces(
  waiting: WaitingRecipient[],
  channel: Channel,
  storedWindow: string | null,
  account: Pick<Account, 'sendWindow' | 'timeZone'>,
  at: Date,
): Array<Date | null> {
  const window = windowOfSend(storedWindow ? JSON.parse(storedWindow) : null, account);
  if (!window) return waiting.map(() => null);
  const entries = waiting.map((w) => ({
    recipient: w.recipient,
    status: 'SCHEDULED',
    sendAt: undefined as Date | undefined,
  }));
  deferToWindow(entries, channel, window, account.timeZone ?? 'UTC', at);
  return entries.map((e) => e.sendAt ?? null);
}
