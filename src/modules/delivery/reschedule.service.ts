import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import type { DataSide } from '../api-keys/auth/auth-context.js';
import { AppException } from '../../platform/errors/app.exception.js';
import type { ErrorDetail } from '../../platform/errors/error-codes.js';
import { ScheduleStore } from '../messages/schedule.store.js';
import { parseSendAt, validUntilOf } from '../messages/schedule.js';

export interface RescheduleAnswer {
  api_reference: string;
  rescheduled: number;
  send_at: string;
}

/**
 * Moves the messages of a request that are still SCHEDULED, under the send_at rules of a send
 * (a time past or under 5 s ahead means now: the due scanner takes them at its next poll). The
 * validity period is counted again from the later of the new send_at and acceptance.
 */
@Injectable()
export class RescheduleService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly schedules: ScheduleStore,
  ) {}

  async reschedule(side: DataSide, apiReference: string, rawSendAt: unknown): Promise<RescheduleAnswer> {
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
    const moved = await this.schedules.reschedule(apiReference, {
      sendAt: at,
      dueAt: at,
      validUntil: validUntilOf(at, new Date(request.created_at), validity),
    });
    if (moved === 0) {
      throw new AppException(
        'NOT_RESCHEDULABLE',
        `No message of request ${apiReference} is still SCHEDULED: there is nothing to reschedule.`,
      );
    }
    return { api_reference: apiReference, rescheduled: moved, send_at: at.toISOString() };
  }
}
