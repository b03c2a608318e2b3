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
import { AppException } from '../../../platform/errors/app.exception.js';
import { RepeatLimiter } from '../../../platform/logging/repeat-limiter.js';
import { PeriodicTask } from '../../../platform/periodic/periodic-task.js';
import { REDIS } from '../../../platform/redis/redis.module.js';

/** A lease lives this long unless renewed: an API process that dies frees its account's slot within it. */
const LEASE_MS = 30_000;
const RENEW_EVERY_MS = 10_000;

/**
 * Takes a slot when fewer than the limit are held: a sorted set per account, each member a lease
 * scored by when it lapses (on Redis' clock, so the API processes' clocks do not matter).
 * Answers the leases held after, or -(held) when full.
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local n = redis.call('ZCARD', KEYS[1])
if n >= tonumber(ARGV[1]) then return -n end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return n + 1`;

/** Pushes a held lease's end on (XX: a lease already lapsed and removed stays gone). */
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`;

/** One account's export slot, held while its export runs. */
export interface ExportLease {
  release(): Promise<void>;
}

/**
 * EXPORTS_PER_ACCOUNT exports at once per account, across every API process: each export holds
 * a lease in Redis, renewed while it runs and released when it ends (a process that dies lets its
 * leases lapse within LEASE_MS). Fails open: while Redis cannot answer, exports are not counted
 * per account (each process still runs at most a quarter of its pool as exports).
 */
@Injectable()
export class ExportLeases implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ExportLeases');
  private readonly warnings = new RepeatLimiter(this.logger);
  /** Leases this process holds: lease id → its Redis key. */
  private readonly held = new Map<string, string>();
  private readonly renewal: PeriodicTask;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
  ) {
    this.renewal = new PeriodicTask({
      run: () => this.renew(),
      everyMs: RENEW_EVERY_MS,
      logger: this.logger,
      warnings: this.warnings,
      failure: 'export leases not renewed',
    });
  }

  onApplicationBootstrap(): void {
    this.renewal.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.renewal.stop();
  }

  /**
   * A slot for one export of the account `accountId` (a family root: a parent's sub-accounts take
   * its slots); 429 RATE_LIMITED when it already runs its limit.
   */
  async acquire(accountId: string): Promise<ExportLease> {
    const key = `${this.config.queuePrefix}:export-leases:${accountId}`;
    const id = randomUUID();
    let held: number;
    try {
      held = Number(await this.redis.eval(ACQUIRE, 1, key, this.config.exportsPerAccount, LEASE_MS, id));
    } catch (err) {
      this.warnings.warn(
        `exports not counted per account while Redis cannot answer: ${(err as Error).message}`,
      );
      return { release: async () => undefined };
    }
    if (held < 0)
      throw new AppException(
        'RATE_LIMITED',
        `This account (with its parent or sub-accounts) already has ${-held} export${-held > 1 ? 's' : ''} under way; retry after 5 s.`,
        [],
        { 'Retry-After': '5' },
      );
    this.held.set(id, key);
    return {
      release: async () => {
        if (!this.held.delete(id)) return;
        await this.redis.zrem(key, id).catch(() => undefined);
      },
    };
  }

  private async renew(): Promise<void> {
    for (const [id, key] of this.held) await this.redis.eval(RENEW, 1, key, LEASE_MS, id);
  }
}
