import { Inject, Injectable, Logger } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { RepeatLimiter } from '../../../platform/logging/repeat-limiter.js';
import { MetricsService, withTimeout } from '../../metrics/metrics.service.js';
import type { OutboxPdu } from './receipt-pdu.js';
import { SmppReceiptStore } from './smpp-receipt.store.js';

/** A scrape does not wait longer than this for the outbox count. */
const SCRAPE_TIMEOUT_MS = 500;

type Kind = OutboxPdu['kind'];

/**
 * The SMPP outbox's metrics, in the process's registry: what waits (read from MySQL at scrape
 * time, the same figure in every process), and what this process sent, retried, dropped or expired.
 */
@Injectable()
export class SmppReceiptMetrics {
  private readonly warnings = new RepeatLimiter(new Logger(SmppReceiptMetrics.name));
  private readonly sentTotal: Counter<'kind'>;
  private readonly retriedTotal: Counter<'kind'>;
  private readonly droppedTotal: Counter<'kind'>;
  private readonly expiredTotal: Counter;

  constructor(@Inject(MetricsService) metrics: MetricsService, store: SmppReceiptStore) {
    const registers = [metrics.registry];
    const kinds = ['kind'] as const;
    this.sentTotal = new Counter({
      name: 'bulk_smpp_receipts_sent_total',
      help: "deliver_sm to customers' SMPP receivers answered OK, by kind (receipt, inbound)",
      labelNames: kinds,
      registers,
    });
    this.retriedTotal = new Counter({
      name: 'bulk_smpp_receipts_retried_total',
      help: 'deliver_sm to be sent again: a temporary error (0x08, 0x14, 0x58, 0x64) or no answer within 30 s, by kind',
      labelNames: kinds,
      registers,
    });
    this.droppedTotal = new Counter({
      name: 'bulk_smpp_receipts_dropped_total',
      help: 'deliver_sm given up because the receiver answered a permanent error, by kind',
      labelNames: kinds,
      registers,
    });
    this.expiredTotal = new Counter({
      name: 'bulk_smpp_receipts_expired_total',
      help: 'deliver_sm dropped unsent after SMPP_DLR_TTL_HOURS (no receiver of the credential took them)',
      registers,
    });
    const warnings = this.warnings;
    let read: Promise<{ count: number; oldestSeconds: number }> | null = null;
    // Both gauges come from one query per scrape.
    const waiting = () => (read ??= store.waiting().finally(() => setTimeout(() => (read = null), 0)));
    const scrape = async (pick: (w: { count: number; oldestSeconds: number }) => number, g: Gauge) => {
      try {
        g.set(pick(await withTimeout(waiting(), SCRAPE_TIMEOUT_MS)));
      } catch (err) {
        warnings.warn(`SMPP outbox not counted for /metrics: ${(err as Error).message}`);
      }
    };
    new Gauge({
      name: 'bulk_smpp_receipts_waiting',
      help: "deliver_sm (receipts and inbound SMS) waiting in the outbox for a customer's SMPP receiver, all processes",
      registers,
      async collect() {
        await scrape((w) => w.count, this);
      },
    });
    new Gauge({
      name: 'bulk_smpp_receipts_oldest_seconds',
      help: 'age of the oldest deliver_sm waiting in the SMPP outbox (0 when none waits)',
      registers,
      async collect() {
        await scrape((w) => w.oldestSeconds, this);
      },
    });
  }

  sent(kind: Kind): void {
    this.sentTotal.inc({ kind });
  }

  retried(kind: Kind): void {
    this.retriedTotal.inc({ kind });
  }

  dropped(kind: Kind): void {
    this.droppedTotal.inc({ kind });
  }

  expired(n: number): void {
    if (n > 0) this.expiredTotal.inc(n);
  }
}
