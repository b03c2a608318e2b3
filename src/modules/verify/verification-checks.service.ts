import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { AppException } from '../../platform/errors/app.exception.js';
import { codeDigest, sameDigest } from './verification-code.js';
import { VerificationOutcomes } from './verification-outcomes.service.js';
import {
  VerificationStore,
  type VerificationOwner,
  type VerificationRow,
  type VerificationStatus,
} from './verification.store.js';

/** Checks one verification takes: the fifth wrong code closes it. */
export const MAX_ATTEMPTS = 5;

export interface CheckResult {
  id: string;
  status: VerificationStatus;
  attemptsRemaining: number;
}

const remaining = (v: Pick<VerificationRow, 'attempts'>) => Math.max(0, MAX_ATTEMPTS - v.attempts);

/** Checks, cancels and reads verifications; a pending one past its end is closed `expired` as it is met. */
@Injectable()
export class VerificationChecks {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly store: VerificationStore,
    private readonly outcomes: VerificationOutcomes,
  ) {}

  async check(owner: VerificationOwner, id: string, code: string): Promise<CheckResult> {
    const { after, wasClosed } = await this.apply(owner, id, (v, now) => {
      if (v.expires_at <= now) return { status: 'expired', attempts: v.attempts };
      // The digest is computed and compared whatever the code looks like: no early answer.
      if (sameDigest(codeDigest(this.config.serverSecret, v.id, code), v.code_hash))
        return { status: 'approved', attempts: v.attempts };
      const attempts = v.attempts + 1;
      return { status: attempts >= MAX_ATTEMPTS ? 'max_attempts_reached' : 'pending', attempts };
    });
    if (wasClosed) throw closed(after);
    return { id, status: after.status, attemptsRemaining: remaining(after) };
  }

  async cancel(owner: VerificationOwner, id: string): Promise<VerificationRow> {
    const { after, wasClosed } = await this.apply(owner, id, (v, now) => ({
      status: v.expires_at > now ? 'canceled' : 'expired',
      attempts: v.attempts,
    }));
    if (wasClosed || after.status !== 'canceled') throw closed(after);
    return after;
  }

  async get(owner: VerificationOwner, id: string): Promise<VerificationRow> {
    const v = await this.store.find(owner, id);
    if (!v) throw notFound(id);
    if (v.status !== 'pending' || v.expires_at > new Date()) return v;
    return (await this.apply(owner, id, (row) => ({ status: 'expired', attempts: row.attempts }))).after;
  }

  /**
   * Moves a pending verification on as `next` says (a closed one is left as it is and answered
   * with wasClosed), under its row lock; an outcome reached here is told to VerificationOutcomes.
   */
  private async apply(
    owner: VerificationOwner,
    id: string,
    next: (v: VerificationRow, now: Date) => Pick<VerificationRow, 'status' | 'attempts'>,
  ): Promise<{ after: VerificationRow; wasClosed: boolean }> {
    const now = new Date();
    const changed = await this.store.change(
      owner,
      id,
      (v) => (v.status === 'pending' ? next(v, now) : v),
      now,
    );
    if (!changed) throw notFound(id);
    const { before, after } = changed;
    if (before.status === 'pending' && after.status !== 'pending') this.outcomes.closed(after);
    return { after, wasClosed: before.status !== 'pending' };
  }

  /** Closes pending verifications past their end (the expiry sweep); answers how many it closed. */
  async expireDue(limit: number): Promise<number> {
    const now = new Date();
    let n = 0;
    for (const v of await this.store.due(now, limit))
      if (await this.store.expire(v.id, now)) {
        this.outcomes.closed({ ...v, status: 'expired', closed_at: now });
        n++;
      }
    return n;
  }
}

function notFound(id: string): AppException {
  return new AppException('NOT_FOUND', `Verification ${id} not found.`);
}

function closed(v: VerificationRow): AppException {
  return new AppException('VERIFICATION_CLOSED', `Verification ${v.id} is ${v.status}, no longer pending.`, [
    { field: 'status', message: v.status },
  ]);
}
