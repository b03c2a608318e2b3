import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { AppException } from '../../platform/errors/app.exception.js';
import { codeDigest } from './verification-code.js';
import { VerificationOutcomes } from './verification-outcomes.service.js';
import {
  VerificationStore,
  type Moved,
  type VerificationOutcome,
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
    // The code entered is digested as the stored one was (keyed, bound to the verification) and
    // the two digests compared by the UPDATE that counts the attempt: one round trip.
    const digest = codeDigest(this.config.serverSecret, id, code);
    const after = this.settled(await this.store.check(owner, id, digest, MAX_ATTEMPTS, new Date()), id);
    return { id, status: after.status, attemptsRemaining: remaining(after) };
  }

  async cancel(owner: VerificationOwner, id: string): Promise<VerificationRow> {
    const after = this.settled(await this.store.cancel(owner, id, new Date()), id);
    if (after.status !== 'canceled') throw closed(after);
    return after;
  }

  async get(owner: VerificationOwner, id: string): Promise<VerificationRow> {
    const v = await this.store.find(owner, id);
    if (!v) throw notFound(id);
    if (v.status !== 'pending' || v.expires_at > new Date()) return v;
    const moved = await this.store.expireIfDue(owner, id, new Date());
    if (moved?.moved) this.outcomes.closed(moved.row);
    return moved?.row ?? v;
  }

  /**
   * The verification as a check or a cancel left it: 404 when there is none, 409 when it was
   * closed already; an outcome reached by this call is told to VerificationOutcomes.
   */
  private settled<R extends VerificationOutcome>(m: Moved<R>, id: string): R {
    if (!m) throw notFound(id);
    if (!m.moved) throw closed(m.row);
    if (m.row.status !== 'pending') this.outcomes.closed(m.row);
    return m.row;
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

function closed(v: Pick<VerificationRow, 'id' | 'status'>): AppException {
  return new AppException('VERIFICATION_CLOSED', `Verification ${v.id} is ${v.status}, no longer pending.`, [
    { field: 'status', message: v.status },
  ]);
}
