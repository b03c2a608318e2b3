import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { REDIS } from '../../common/redis/redis.module.js';
import { LOG_DB, NOTIFICATION_DB } from '../../database/data-sources.js';
import { timed } from './probes.js';

export const PROBE_TIMEOUT_MS = 800;

/** One indicator per database of decisions §2: a SELECT 1 with a timeout and its response time. */
@Injectable()
export class DatabaseIndicators {
  constructor(
    private readonly health: HealthIndicatorService,
    @InjectDataSource() private readonly main: DataSource,
    @InjectDataSource(LOG_DB) private readonly log: DataSource,
    @InjectDataSource(NOTIFICATION_DB) private readonly notification: DataSource,
  ) {}

  database() {
    return this.ping('database', this.main, 'main database');
  }

  logDatabase() {
    return this.ping('log_database', this.log, 'log database');
  }

  notificationDatabase() {
    return this.ping('notification_database', this.notification, 'notification database');
  }

  private async ping<K extends string>(key: K, ds: DataSource, label: string) {
    const session = this.health.check(key);
    try {
      const ms = await timed(() => ds.query('SELECT 1'), PROBE_TIMEOUT_MS, label);
      return session.up({ message: `${label} is reachable`, response_time_ms: ms });
    } catch (err) {
      return session.down({ message: `${label} is unreachable: ${(err as Error).message}`, response_time_ms: PROBE_TIMEOUT_MS });
    }
  }
}

@Injectable()
export class RedisIndicator {
  constructor(
    private readonly health: HealthIndicatorService,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  async check() {
    const session = this.health.check('redis');
    try {
      const ms = await timed(() => this.redis.ping(), PROBE_TIMEOUT_MS, 'Redis');
      return session.up({ message: 'Redis is reachable', response_time_ms: ms });
    } catch (err) {
      return session.down({ message: `Redis is unreachable: ${(err as Error).message}` });
    }
  }
}
