import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { BalanceService } from '../../balance/balance.service.js';
import type { LockedMessage } from '../../messages/message.store.js';
import { MessageStateStore } from '../../messages/message-state.store.js';
import { DeliveryMetrics } from '../delivery.metrics.js';
import type { MessageStatus } from '../../messages/channel.js';
import { isBeingHandedOver } from './claim-lease.js';
import { isLockConflict, TRANSITION_LOCK_TRIES } from '../retry-policy.js';
import { STATE_CHANGE_LISTENER, type StateChangeListener } from './state-change.listener.js';
import { mayMove, REFUNDED_ON_ENTRY } from './transitions.js';
import { withFields } from '../../../platform/objects/with-fields.js';
import { RepeatLimiter } from '../../../platform/logging/repeat-limiter.js';

export interface Transition {
  id: string;
  status: MessageStatus;
  reason?: string | null;
  providerMessageId?: string | null;
  at?: Date;
  /** Refund the charge too (a state that is not always refunded, e.g. EXPIRED before hand-over). */
  refund?: boolean;
  /** Skip a message a worker is handing over right now (cancel, validity expiry): sent or not, never both. */
  unlessHandingOver?: boolean;
  /** The SMPP connector it went out on (SENT). */
  connector?: string;
  /** It ends a hand-over attempt, which the same write counts (SENT, REJECTED by the provider). */
  attempted?: boolean;
}

/**
 * Moves messages between states: only forward, each change timestamped in message_events,
 * refunds on FAILED/REJECTED exactly once (lifecycle/transitions.ts holds the table), and every committed
 * change told to the state-change listener (callbacks).
 */
@Injectable()
export class MessageStateService {
  private readonly warnings = new RepeatLimiter(new Logger(MessageStateService.name));

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly balances: BalanceService,
    private readonly store: MessageStateStore,
    @Inject(DeliveryMetrics) private readonly metrics: DeliveryMetrics,
    @Inject(STATE_CHANGE_LISTENER) private readonly listener: StateChangeListener,
  ) {}

  /**
   * Applies the transitions that are allowed and returns the ones that took effect. `alongside`
   * runs in the same transaction, for rows that must commit with the change or not at all.
   */
  async apply(
    transitions: Transition[],
    alongside?: (em: EntityManager) => Promise<void>,
  ): Promise<Transition[]> {
    if (transitions.length === 0) return [];
    // Rows are locked in id order whatever order the caller gives, so concurrent batches queue instead of deadlocking.
    const key = (t: Transition) => String(t.id).padStart(20, '0');
    transitions = [...transitions].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    // A deadlock (or lock wait timeout) between concurrent batches is routine, not a failure, and
    // the caller may already have handed the messages over: failing here would send them again.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.applyOnce(transitions, alongside);
      } catch (err) {
        if (attempt >= TRANSITION_LOCK_TRIES || !isLockConflict(err)) throw err;
      }
    }
  }

  private async applyOnce(
    transitions: Transition[],
    alongside?: (em: EntityManager) => Promise<void>,
  ): Promise<Transition[]> {
    let committed: Array<{ row: LockedMessage; t: Transition & { at: Date } }> = [];
    const applied = await this.ds.transaction(async (em) => {
      const rows = await this.store.lockForTransition(
        em,
        transitions.map((t) => t.id),
      );
      const byId = new Map(rows.map((r) => [String(r.id), r]));
      const done: Array<{ row: LockedMessage; t: Transition & { at: Date } }> = [];
      // One time for the whole batch: rows that share it are written with one value, where
      // times that straddle a millisecond would need a CASE over every id, searched per row.
      const now = new Date();
      for (const t of transitions) {
        const row = byId.get(t.id);
        if (!row || !mayMove(row.status, t.status)) continue;
        const at = t.at ?? now;
        if (t.unlessHandingOver && isBeingHandedOver(row, at)) continue;
        row.status = t.status;
        done.push({ row, t: withFields(t, { at }) });
      }
      await this.write(em, done);
      if (alongside) await alongside(em);
      committed = done;
      return done.map((d) => d.t);
    });
    // Committed: nothing from here may throw to the caller. A caller that retried would find
    // nothing left to change, and this commit's events would never reach the listener.
    try {
      this.metrics.transitionsCommitted(
        committed.map(({ row, t }) => ({
          channel: row.channel,
          status: t.status,
          createdAt: row.created_at,
          at: t.at,
        })),
      );
      if (committed.length)
        await this.listener.committed(
          committed.map(({ row, t }) => ({
            message: row,
            status: t.status,
            reason: t.reason ?? null,
            at: t.at,
          })),
        );
    } catch (err) {
      this.warnings.warn(
        `${committed.length} committed state change(s) not passed on: ${(err as Error).message}`,
      );
    }
    return applied;
  }

  /** One UPDATE per target state and one multi-row INSERT of history, whatever the batch size. */
  private async write(
    em: EntityManager,
    done: Array<{ row: LockedMessage; t: Transition & { at: Date } }>,
  ): Promise<void> {
    if (done.length === 0) return;
    await this.store.writeTransitions(
      em,
      done.map(({ row, t }) => ({
        id: row.id,
        status: t.status,
        reason: t.reason ?? null,
        providerMessageId: t.providerMessageId ?? null,
        connector: t.connector ?? null,
        at: t.at,
        attempted: t.attempted,
      })),
    );
    // One batch of statements for all the refunds of the batch (a cancel may end thousands at once).
    // A test request was never charged: nothing to give back.
    await this.balances.refundMessages(
      em,
      done
        .filter(({ row, t }) => (REFUNDED_ON_ENTRY.has(t.status) || t.refund) && !row.test_mode)
        .map(({ row }) => ({
          id: String(row.id),
          accountId: String(row.account_id),
          channel: row.channel,
          cost: row.cost,
          sendRequestId: String(row.send_request_id),
          apiKeyId: row.api_key_id,
          chargedAt: row.created_at,
        })),
    );
  }
}
