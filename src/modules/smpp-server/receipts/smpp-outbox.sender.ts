import { randomUUID } from 'node:crypto';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { RepeatLimiter } from '../../../platform/logging/repeat-limiter.js';
import { PeriodicTask } from '../../../platform/periodic/periodic-task.js';
import { REDIS } from '../../../platform/redis/redis.module.js';
import { subscriber } from '../../../platform/redis/redis-subscriber.js';
import { BoundSessions, type BoundSession } from '../bound-sessions.registry.js';
import { OUTBOX_POLL_MS, outboxWakeChannel } from './outbox-wake.js';
import { deliverSmFields } from './receipt-pdu.js';
import { SmppReceiptMetrics } from './smpp-receipt.metrics.js';
import { SmppReceiptStore, type ClaimedRow } from './smpp-receipt.store.js';

/** A receiver that does not answer a deliver_sm within this long gets it again later. */
export const DELIVER_SM_TIMEOUT_MS = 30_000;
/** A claimed row is this process's for this long: past every answer's wait, with a margin. */
const LEASE_MS = DELIVER_SM_TIMEOUT_MS * 2;
/** Rows claimed at once per credential: in flight together over its receivers. */
const BATCH = 100;
/** deliver_sm_resp statuses that mean "not now": ESME_RSYSERR, ESME_RMSGQFUL, ESME_RTHROTTLED, ESME_RX_T_APPN. */
const TEMPORARY = new Set([0x08, 0x14, 0x58, 0x64]);
const RETRY_BASE_MS = 5_000;
const RETRY_MAX_MS = 600_000;

/** The wait before the next try of a row tried `attempts` times: doubling from 5 s up to 10 min, with jitter. */
export function retryDelayMs(attempts: number): number {
  const base = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (0.75 + Math.random() * 0.5));
}

/**
 * In each process that holds SMPP binds: sends the outbox's deliver_sm to receivers of their
 * credential bound here. Woken by the writers over Redis, by a receiver binding, and every
 * OUTBOX_POLL_MS; rows are claimed under a lease, so processes with receivers of one credential
 * share its rows and never send one twice at once. A deliver_sm_resp OK deletes the row; a
 * temporary error or no answer tries it again later (by any process); another error drops it.
 */
@Injectable()
export class SmppOutboxSender implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('SmppReceipts');
  private readonly warnings = new RepeatLimiter(this.logger);
  private readonly task: PeriodicTask;
  private subscriber?: Redis;
  /** Credentials being pumped, and whether another pass was asked for meanwhile. */
  private readonly pumping = new Map<number, boolean>();
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;
  private turn = 0;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly sessions: BoundSessions,
    private readonly store: SmppReceiptStore,
    private readonly metrics: SmppReceiptMetrics,
  ) {
    this.task = new PeriodicTask({
      run: () => this.wakeAll(),
      everyMs: OUTBOX_POLL_MS,
      logger: this.logger,
      warnings: this.warnings,
      failure: 'SMPP outbox round failed',
    });
  }

  onApplicationBootstrap(): void {
    this.sessions.onBound((s) => {
      if (this.receives(s)) this.wake([s.credentialId]);
    });
    this.subscriber = subscriber(this.redis, outboxWakeChannel(this.config), {
      onMessage: (text) => {
        try {
          this.wake((JSON.parse(text) as unknown[]).map(Number));
        } catch {
          // not ours: ignored
        }
      },
      onFailure: (err) => this.warnings.warn(`SMPP outbox wake-ups not heard (${err.message}); polling`),
    });
    this.task.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.task.stop();
    this.subscriber?.disconnect();
    await Promise.allSettled([...this.inFlight]);
  }

  /** Sends what is due for these credentials, where one of their receivers is bound here. */
  wake(credentialIds: number[]): void {
    for (const id of credentialIds) {
      if (this.stopped || this.sessions.receivers(id).length === 0) continue;
      if (this.pumping.has(id)) {
        this.pumping.set(id, true);
        continue;
      }
      this.pumping.set(id, false);
      const run: Promise<void> = this.pump(id)
        .catch((err: Error) => this.warnings.warn(`SMPP outbox not sent for now (${err.message})`, 'pump'))
        .finally(() => {
          this.inFlight.delete(run);
          const again = this.pumping.get(id);
          this.pumping.delete(id);
          if (again) this.wake([id]);
        });
      this.inFlight.add(run);
    }
  }

  private async wakeAll(): Promise<void> {
    const ids = new Set(
      this.sessions
        .all()
        .filter((s) => this.receives(s))
        .map((s) => s.credentialId),
    );
    this.wake([...ids]);
  }

  private receives(s: BoundSession): boolean {
    return s.bindType === 'receiver' || s.bindType === 'transceiver';
  }

  private async pump(credentialId: number): Promise<void> {
    for (;;) {
      if (this.stopped || this.sessions.receivers(credentialId).length === 0) return;
      const rows = await this.store.claim([credentialId], randomUUID(), LEASE_MS, BATCH);
      if (rows.length === 0) return;
      await this.sendAll(credentialId, rows);
      if (rows.length < BATCH) return;
    }
  }

  private async sendAll(credentialId: number, rows: ClaimedRow[]): Promise<void> {
    const done: string[] = [];
    const later = new Map<number, string[]>();
    const retry = (row: ClaimedRow, delayMs: number) =>
      later.set(delayMs, [...(later.get(delayMs) ?? []), row.id]);
    await Promise.all(
      rows.map(async (row) => {
        const receivers = this.sessions.receivers(credentialId);
        // The receivers went away meanwhile: the row is free for the next bind, untried.
        if (receivers.length === 0) return retry(row, 0);
        const session = receivers[this.turn++ % receivers.length]!;
        let status: number;
        try {
          status = await session.deliverSm(deliverSmFields(row.pdu), DELIVER_SM_TIMEOUT_MS);
        } catch (err) {
          this.metrics.retried(row.pdu.kind);
          this.warnings.warn(
            `deliver_sm to ${session.systemId} not answered (${(err as Error).message}); retried`,
            'unanswered',
          );
          return retry(row, retryDelayMs(row.attempts));
        }
        if (status === 0) {
          this.metrics.sent(row.pdu.kind);
          done.push(row.id);
        } else if (TEMPORARY.has(status)) {
          this.metrics.retried(row.pdu.kind);
          retry(row, retryDelayMs(row.attempts));
        } else {
          this.metrics.dropped(row.pdu.kind);
          this.warnings.warn(
            `${row.pdu.kind} deliver_sm dropped: ${session.systemId} answered 0x${status.toString(16).padStart(8, '0')}`,
            'dropped',
          );
          done.push(row.id);
        }
      }),
    );
    await this.store.remove(done);
    for (const [delayMs, ids] of later) await this.store.retryLater(ids, delayMs);
  }
}
