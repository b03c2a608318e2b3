import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { NOTIFICATION_DB } from '../../database/data-sources.js';
import { MessageStateService } from '../messaging/message-state.service.js';
import type { DeliveryReport } from './transports/transport.js';

/**
 * Records every delivery report in the notification database and applies it to its message.
 * A report that overtakes our own record of SENT (no message carries its provider id yet) is
 * kept pending and applied when SENT is recorded (decisions §6).
 */
@Injectable()
export class DeliveryReportService {
  constructor(
    @InjectDataSource() private readonly main: DataSource,
    @InjectDataSource(NOTIFICATION_DB) private readonly notifications: DataSource,
    private readonly states: MessageStateService,
  ) {}

  async receive(transport: string, report: DeliveryReport): Promise<void> {
    const res = (await this.notifications.query(
      'INSERT INTO delivery_reports (transport, provider_message_id, status, reason, occurred_at) VALUES (?, ?, ?, ?, ?)',
      [transport, report.providerMessageId, report.status, report.reason ?? null, report.occurredAt],
    )) as { insertId: number };
    const [msg] = (await this.main.query('SELECT id FROM messages WHERE provider_message_id = ? LIMIT 1', [
      report.providerMessageId,
    ])) as Array<{ id: string }>;
    if (!msg) return;
    await this.states.apply([{ id: String(msg.id), status: report.status, reason: report.reason ?? null, at: report.occurredAt }]);
    await this.notifications.query('UPDATE delivery_reports SET applied_at = CURRENT_TIMESTAMP(3), message_id = ? WHERE id = ?', [
      msg.id,
      res.insertId,
    ]);
  }

  /** Applies reports that arrived before the SENT of these messages was recorded. */
  async applyPending(sent: Array<{ id: string; providerMessageId: string }>): Promise<void> {
    if (sent.length === 0) return;
    const byProvider = new Map(sent.map((s) => [s.providerMessageId, s.id]));
    const pending = (await this.notifications.query(
      'SELECT id, provider_message_id, status, reason, occurred_at FROM delivery_reports WHERE provider_message_id IN (?) AND applied_at IS NULL',
      [[...byProvider.keys()]],
    )) as Array<{ id: string; provider_message_id: string; status: DeliveryReport['status']; reason: string | null; occurred_at: Date }>;
    if (pending.length === 0) return;
    await this.states.apply(
      pending.map((p) => ({ id: byProvider.get(p.provider_message_id)!, status: p.status, reason: p.reason, at: p.occurred_at })),
    );
    await this.notifications.query(
      'UPDATE delivery_reports SET applied_at = CURRENT_TIMESTAMP(3) WHERE id IN (?)',
      [pending.map((p) => p.id)],
    );
  }
}
