import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { RepeatLimiter } from '../../common/logging/repeat-limiter.js';
import { NOTIFICATION_DB } from '../../database/data-sources.js';
import { MessageStateService } from '../messaging/message-state.service.js';
import type { DeliveryReport } from './transports/transport.js';

const MAX_BATCH = 500;

interface Queued {
  transport: string;
  report: DeliveryReport;
  done: (err?: Error) => void;
}

/**
 * Records every delivery report in the notification database and applies it to its message.
 * Reports arriving together (an SMSC sends thousands a second) are handled as one batch: one
 * INSERT, one lookup, one state transaction, one UPDATE. A report that overtakes our own
 * record of SENT (no message carries its provider id yet) is kept pending and applied when
 * SENT is recorded (decisions §6).
 */
@Injectable()
export class DeliveryReportService {
  private readonly logger = new Logger(DeliveryReportService.name);
  private readonly warnings = new RepeatLimiter(this.logger);
  private queue: Queued[] = [];
  private flushing = false;

  constructor(
    @InjectDataSource() private readonly main: DataSource,
    @InjectDataSource(NOTIFICATION_DB) private readonly notifications: DataSource,
    private readonly states: MessageStateService,
  ) {}

  /** Resolves once the report is stored (and applied, when its message is known). */
  receive(transport: string, report: DeliveryReport): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ transport, report, done: (err) => (err ? reject(err) : resolve()) });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue.splice(0, MAX_BATCH);
      try {
        await this.handle(batch);
        for (const q of batch) q.done();
      } catch (err) {
        this.warnings.warn(`${batch.length} delivery report(s) not applied: ${(err as Error).message}`);
        for (const q of batch) q.done(err as Error);
      }
    }
    this.flushing = false;
  }

  private async handle(batch: Queued[]): Promise<void> {
    await this.notifications.query(
      `INSERT INTO delivery_reports (transport, provider_message_id, status, reason, occurred_at) VALUES ${batch.map(() => '(?, ?, ?, ?, ?)').join(',')}`,
      batch.flatMap((q) => [q.transport, q.report.providerMessageId, q.report.status, q.report.reason ?? null, q.report.occurredAt]),
    );
    const providerIds = [...new Set(batch.map((q) => q.report.providerMessageId))];
    const found = (await this.main.query('SELECT id, provider_message_id FROM messages WHERE provider_message_id IN (?)', [providerIds])) as Array<{
      id: string;
      provider_message_id: string;
    }>;
    if (found.length === 0) return;
    const byProvider = new Map(found.map((m) => [m.provider_message_id, String(m.id)]));
    // The state change is stamped when we learn of it: providers' own times are often
    // minute-precision (SMPP done date) and would put DELIVERED before SENT in the history.
    // The provider's time stays in delivery_reports.occurred_at.
    await this.states.apply(
      batch
        .filter((q) => byProvider.has(q.report.providerMessageId))
        .map((q) => ({ id: byProvider.get(q.report.providerMessageId)!, status: q.report.status, reason: q.report.reason ?? null })),
    );
    await this.markApplied(byProvider);
  }

  /** Applies reports that arrived before the SENT of these messages was recorded. */
  async applyPending(sent: Array<{ id: string; providerMessageId: string }>): Promise<void> {
    if (sent.length === 0) return;
    const byProvider = new Map(sent.map((s) => [s.providerMessageId, s.id]));
    const pending = (await this.notifications.query(
      'SELECT provider_message_id, status, reason FROM delivery_reports WHERE provider_message_id IN (?) AND applied_at IS NULL ORDER BY id',
      [[...byProvider.keys()]],
    )) as Array<{ provider_message_id: string; status: DeliveryReport['status']; reason: string | null }>;
    if (pending.length === 0) return;
    await this.states.apply(pending.map((p) => ({ id: byProvider.get(p.provider_message_id)!, status: p.status, reason: p.reason })));
    await this.markApplied(new Map(pending.map((p) => [p.provider_message_id, byProvider.get(p.provider_message_id)!])));
  }

  private async markApplied(byProvider: Map<string, string>): Promise<void> {
    const params: unknown[] = [];
    const cases = [...byProvider].map(([provider, id]) => (params.push(provider, id), 'WHEN ? THEN ?')).join(' ');
    await this.notifications.query(
      `UPDATE delivery_reports SET applied_at = CURRENT_TIMESTAMP(3), message_id = CASE provider_message_id ${cases} END
        WHERE provider_message_id IN (?) AND applied_at IS NULL`,
      [...params, [...byProvider.keys()]],
    );
  }
}
