import { Inject, Injectable, Optional } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Job } from 'bull';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { NOTIFICATION_DB } from '../../database/data-sources.js';
import type { CallbackJob } from '../messaging/message-state.service.js';
import { MetricsService } from '../metrics/metrics.service.js';
import { RefusedTarget, safePost } from './safe-post.js';
import { signCallback } from './signature.js';

export class CallbackFailed extends Error {}

/**
 * Delivers one signed callback and records the attempt in the notification
 * database. A non-2xx answer or no answer throws, so Bull retries with jittered exponential
 * backoff; a target refused by the SSRF guard is recorded and not retried.
 */
@Injectable()
export class CallbackSender {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly main: DataSource,
    @InjectDataSource(NOTIFICATION_DB) private readonly notifications: DataSource,
    @Optional() @Inject(MetricsService) private readonly metrics?: MetricsService,
  ) {}

  async handle(job: Job<CallbackJob>): Promise<void> {
    const { url, accountId, payload, messageRowId, eventId } = job.data;
    const [account] = (await this.main.query('SELECT callback_secret FROM accounts WHERE id = ?', [accountId])) as Array<{
      callback_secret: string;
    }>;
    if (!account) return;
    const body = JSON.stringify(payload);
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'X-Signature-Timestamp': String(timestamp),
      'X-Signature': signCallback(account.callback_secret, timestamp, body),
      'X-Event-Id': eventId,
    };
    const started = performance.now();
    let outcome: 'delivered' | 'http_error' | 'network_error' | 'refused';
    let httpStatus: number | null = null;
    let error: string | null = null;
    try {
      const res = await safePost(url, body, headers, {
        timeoutMs: this.config.callbackTimeoutMs,
        allowPrivate: this.config.callbackAllowPrivateNetworks,
        httpsOnly: this.config.callbackHttpsOnly,
      });
      httpStatus = res.status;
      outcome = res.status >= 200 && res.status < 300 ? 'delivered' : 'http_error';
      if (outcome === 'http_error') error = `HTTP ${res.status}`;
    } catch (err) {
      outcome = err instanceof RefusedTarget ? 'refused' : 'network_error';
      error = (err as Error).message.slice(0, 255);
    }
    await this.notifications.query(
      `INSERT INTO callback_attempts (event_id, message_id, account_id, url, attempt, outcome, http_status, error, duration_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [eventId, messageRowId, accountId, url.slice(0, 2048), job.attemptsMade + 1, outcome, httpStatus, error, Math.round(performance.now() - started)],
    );
    this.metrics?.callbackAttempt(outcome);
    if (outcome === 'http_error' || outcome === 'network_error') throw new CallbackFailed(`callback ${eventId}: ${error}`);
  }
}

/** Exponential backoff with jitter: base × 2^(n-1), scaled by a random factor in [0.75, 1.25). */
export function jitteredBackoff(baseMs: number) {
  return (attemptsMade: number): number => Math.round(baseMs * 2 ** Math.max(0, attemptsMade - 1) * (0.75 + Math.random() * 0.5));
}
