import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { REDIS } from '../../platform/redis/redis.module.js';
import { LOG_DB, NOTIFICATION_DB } from '../../database/data-sources.js';
import { SingleFlight, errorText, timed } from './probes.js';

/** Longest any one probe waits: every health answer stays under a second even when a dependency hangs. */
export const PROBE_TIMEOUT_MS = 800;

type Ping = { ok: true; ms: number; rows?: unknown } | { ok: false; ms: number; error: string };

/**
 * SELECT 1 with the probe timeout. The query itself is shared while it is pending: when the
 * database hangs, later probes wait on the same stuck query (and time out) instead of taking
 * one more pool connection each.
 */
class DataSourcePing {
  private readonly flight = new SingleFlight<unknown>();

  constructor(
    private readonly ds: DataSource,
    private readonly label: string,
    private readonly sql = 'SELECT 1',
  ) {}

  async run(): Promise<Ping> {
    const started = performance.now();
    try {
      let rows: unknown;
      const ms = await timed(
        async () => (rows = await this.flight.run(() => this.ds.query(this.sql))),
        PROBE_TIMEOUT_MS,
        this.label,
      );
      return { ok: true, ms, rows };
    } catch (err) {
      return { ok: false, ms: Math.round(performance.now() - started), error: errorText(err) };
    }
  }
}

async function databaseCheck<K extends string>(
  health: HealthIndicatorService,
  key: K,
  ping: DataSourcePing,
  label: string,
  more: (rows: unknown) => Record<string, unknown> = () => ({}),
) {
  const session = health.check(key);
  const r = await ping.run();
  return r.ok
    ? session.up({ message: `${label} is reachable`, response_time_ms: r.ms, ...more(r.rows) })
    : session.down({ message: `${label} is unreachable: ${r.error}`, response_time_ms: r.ms });
}

/** The server that answered, as it names itself: behind a proxy or on a cluster, which node that is. */
const WHO_ANSWERS = 'SELECT @@hostname AS host, @@port AS port';

function answeringNode(rows: unknown): { node: string } {
  const row = (rows as Array<{ host?: string; port?: number | string }> | undefined)?.[0];
  return { node: row ? `${row.host}:${row.port}` : 'unknown' };
}

/** `database`: the main database (accounts, keys, messages, ledger), with the node that answered. */
@Injectable()
export class DatabaseIndicator {
  private readonly ping: DataSourcePing;

  constructor(
    private readonly health: HealthIndicatorService,
    @InjectDataSource() ds: DataSource,
  ) {
    this.ping = new DataSourcePing(ds, 'main database', WHO_ANSWERS);
  }

  check() {
    return databaseCheck(this.health, 'database', this.ping, 'main database', answeringNode);
  }
}

/** `log_database`: request logs. */
@Injectable()
export class LogDatabaseIndicator {
  private readonly ping: DataSourcePing;

  constructor(
    private readonly health: HealthIndicatorService,
    @InjectDataSource(LOG_DB) ds: DataSource,
  ) {
    this.ping = new DataSourcePing(ds, 'log database');
  }

  check() {
    return databaseCheck(this.health, 'log_database', this.ping, 'log database');
  }
}

/** `notification_database`: delivery reports and callback attempts. */
@Injectable()
export class NotificationDatabaseIndicator {
  private readonly ping: DataSourcePing;

  constructor(
    private readonly health: HealthIndicatorService,
    @InjectDataSource(NOTIFICATION_DB) ds: DataSource,
  ) {
    this.ping = new DataSourcePing(ds, 'notification database');
  }

  check() {
    return databaseCheck(this.health, 'notification_database', this.ping, 'notification database');
  }
}

/** The app's own Redis connection (rate limits, API-key cache): PING with the probe timeout. */
@Injectable()
export class RedisIndicator {
  private readonly flight = new SingleFlight<unknown>();

  constructor(
    private readonly health: HealthIndicatorService,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  /** Fails at once while the client is not connected rather than waiting out the timeout; one PING in flight at most. */
  async ping(): Promise<Ping> {
    const started = performance.now();
    if (this.redis.status !== 'ready')
      return { ok: false, ms: 0, error: `connection is ${this.redis.status}` };
    try {
      return {
        ok: true,
        ms: await timed(() => this.flight.run(() => this.redis.ping()), PROBE_TIMEOUT_MS, 'Redis'),
      };
    } catch (err) {
      return { ok: false, ms: Math.round(performance.now() - started), error: errorText(err) };
    }
  }

  async check() {
    const session = this.health.check('redis');
    const r = await this.ping();
    return r.ok
      ? session.up({ message: 'Redis is reachable', response_time_ms: r.ms })
      : session.down({ message: `Redis is unreachable: ${r.error}`, response_time_ms: r.ms });
  }
}
