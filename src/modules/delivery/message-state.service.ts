import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { BalanceService } from '../balance/balance.service.js';
import { CallbackOutbox } from '../callbacks/callback-outbox.js';
import { MessageStore, type LockedMessage } from '../messages/message.store.js';
import { MetricsService } from '../metrics/metrics.service.js';
import type { Channel, MessageStatus } from '../messages/channel.js';

/** From which states each state may be reached. A state never goes back. */
const ALLOWED_FROM: Record<MessageStatus, MessageStatus[]> = {
  ACKNOWLEDGED: [],
  SENT: ['ACKNOWLEDGED'],
  // A report may overtake our own record of SENT: it is applied from ACKNOWLEDGED too.
  DELIVERED: ['ACKNOWLEDGED', 'SENT'],
  UNDELIVERED: ['ACKNOWLEDGED', 'SENT'],
  EXPIRED: ['ACKNOWLEDGED', 'SENT'],
  REJECTED: ['ACKNOWLEDGED', 'SENT'],
  FAILED: ['ACKNOWLEDGED'],
};

const REFUNDED: ReadonlySet<MessageStatus> = new Set(['FAILED', 'REJECTED']);
const ER_LOCK_WAIT_TIMEOUT = 1205;
const ER_LOCK_DEADLOCK = 1213;
const LOCK_RETRIES = 3;

export interface Transition {
  id: string;
  status: MessageStatus;
  reason?: string | null;
  providerMessageId?: string | null;
  at?: Date;
}

export interface CallbackJob {
  eventId: string;
  url: string;
  accountId: string;
  /** The row the event is about: a message, or an inbound message when eventType is 'inbound'. */
  messageRowId: string;
  /** Absent for a message's state change; 'inbound' for an inbound message sent to the inbound webhook. */
  eventType?: 'inbound';
  /** A message's state change; for the inbound webhook, the inbound message's own fields. */
  payload: Record<string, unknown> &
    (
      | {
          event_id: string;
          message_id: string;
          api_reference: string;
          user_reference_id: string | null;
          channel: Channel;
          recipient: string;
          status: MessageStatus;
          reason: string | null;
          occurred_at: string;
        }
      | { event_id: string; type: 'inbound.sms' }
    );
}

/**
 * Moves messages between states: only forward, each change timestamped in message_events,
 * refunds on FAILED/REJECTED exactly once, and a callback job per change when the request
 * named a callback_url.
 */
@Injectable()
export class MessageStateService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly balances: BalanceService,
    private readonly store: MessageStore,
    @Inject(MetricsService) private readonly metrics: MetricsService,
    private readonly outbox: CallbackOutbox,
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
        const errno = (err as { errno?: number }).errno;
        if (attempt >= LOCK_RETRIES || (errno !== ER_LOCK_DEADLOCK && errno !== ER_LOCK_WAIT_TIMEOUT))
          throw err;
      }
    }
  }

  private async applyOnce(
    transitions: Transition[],
    alongside?: (em: EntityManager) => Promise<void>,
  ): Promise<Transition[]> {
    const jobs: CallbackJob[] = [];
    let committed: Array<{ row: LockedMessage; t: Transition & { at: Date } }> = [];
    const applied = await this.ds.transaction(async (em) => {
      const rows = await this.store.lockForTransition(
        em,
        transitions.map((t) => t.id),
      );
      const byId = new Map(rows.map((r) => [String(r.id), r]));
      const done: Array<{ row: LockedMessage; t: Transition & { at: Date } }> = [];
      for (const t of transitions) {
        const row = byId.get(t.id);
        if (!row || !ALLOWED_FROM[t.status].includes(row.status)) continue;
        const at = t.at ?? new Date();
        row.status = t.status;
        done.push({ row, t: { ...t, at } });
        if (row.callback_url) jobs.push(this.callbackJob(row, t, at));
      }
      await this.write(em, done);
      if (alongside) await alongside(em);
      committed = done;
      return done.map((d) => d.t);
    });
    this.metrics.transitionsCommitted(
      committed.map(({ row, t }) => ({
        channel: row.channel,
        status: t.status,
        createdAt: row.created_at,
        at: t.at,
      })),
    );
    if (jobs.length) {
      // Kept in MySQL until delivered, so neither Redis being away nor Redis losing its data loses it.
      await this.outbox.queue(jobs);
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
        at: t.at,
      })),
    );
    for (const { row, t } of done) {
      if (!REFUNDED.has(t.status)) continue;
      await this.balances.refundMessage(em, {
        id: String(row.id),
        accountId: String(row.account_id),
        channel: row.channel,
        cost: row.cost,
        sendRequestId: String(row.send_request_id),
      });
    }
  }

  private callbackJob(row: LockedMessage, t: Transition, at: Date): CallbackJob {
    const eventId = randomUUID();
    return {
      eventId,
      url: row.callback_url!,
      accountId: String(row.account_id),
      messageRowId: String(row.id),
      payload: {
        event_id: eventId,
        // The id the send answer gave: the UUID for SMS and chat, the numeric id for e-mail.
        message_id: row.channel === 'email' ? String(row.id) : row.uuid,
        api_reference: String(row.send_request_id),
        user_reference_id: row.user_reference_id,
        channel: row.channel,
        recipient: row.recipient,
        status: t.status,
        reason: t.reason ?? null,
        occurred_at: at.toISOString(),
      },
    };
  }
}
