import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import type { Channel } from '../messaging/channel.js';
import { DispatchProducer } from './dispatch.producer.js';

/**
 * Nothing lost between MySQL and Redis: a request stored but never enqueued (Redis down at
 * the moment of the send, or a crash between commit and enqueue) still has enqueued_at NULL.
 * This finds such requests and enqueues their waiting messages; the producer's job ids make
 * a double enqueue harmless, and the dispatcher skips messages already sent.
 */
@Injectable()
export class RecoverySweep implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RecoverySweep.name);
  private timer?: NodeJS.Timeout;
  private running = false;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly producer: DispatchProducer,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), this.config.sweepIntervalMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Returns how many requests were enqueued. */
  async sweep(): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    let enqueued = 0;
    try {
      const stale = (await this.ds.query(
        `SELECT id, channel FROM send_requests
          WHERE enqueued_at IS NULL AND created_at < UTC_TIMESTAMP(3) - INTERVAL ? MICROSECOND
          ORDER BY id LIMIT 200`,
        [this.config.sweepMinAgeMs * 1000],
      )) as Array<{ id: string; channel: Channel }>;
      for (const req of stale) {
        const ids = (await this.ds.query("SELECT id FROM messages WHERE send_request_id = ? AND status = 'ACKNOWLEDGED' ORDER BY id", [
          req.id,
        ])) as Array<{ id: string }>;
        if (await this.producer.enqueue(req.channel, String(req.id), ids.map((r) => String(r.id)))) enqueued++;
        else break; // Redis is still away: try again next round.
      }
      if (enqueued) this.logger.log(`recovered ${enqueued} request(s) that had not reached the queue`);
    } catch (err) {
      this.logger.warn(`sweep failed: ${(err as Error).message}`);
    } finally {
      this.running = false;
    }
    return enqueued;
  }
}
