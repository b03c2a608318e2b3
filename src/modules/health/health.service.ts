import { Inject, Injectable } from '@nestjs/common';
import { HealthCheckService, type HealthCheckResult, type HealthIndicatorFunction } from '@nestjs/terminus';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { CacheIndicator } from './cache.indicator.js';
import {
  DatabaseIndicator,
  LogDatabaseIndicator,
  NotificationDatabaseIndicator,
  RedisIndicator,
} from './dependency.indicators.js';
import { ClientServerIndicator, SmsServerIndicator } from './external.indicators.js';
import { LifecycleState } from './lifecycle.state.js';
import { MessageQueueIndicator } from './message-queue.indicator.js';
import { SingleFlight, humanDuration } from './probes.js';
import { ProcessStats, liveBody } from '../metrics/process-stats.service.js';

type Member = { status: 'healthy' | 'unhealthy'; message: string } & Record<string, unknown>;

/** Terminus's up/down entry as a member: status healthy|unhealthy, the rest as it was. */
function member(entry: Record<string, unknown> | undefined, fallback: string): Member {
  if (!entry) return { status: 'unhealthy', message: fallback };
  const { status, message, ...rest } = entry;
  return { status: status === 'up' ? 'healthy' : 'unhealthy', message: String(message ?? fallback), ...rest };
}

type Answer = { httpStatus: number; body: Record<string, unknown> };

/** Builds the health answers from Terminus checks. */
@Injectable()
export class HealthService {
  private readonly detailedFlight = new SingleFlight<Answer>();
  private lastDetailed?: { answer: Promise<Answer>; until: number };

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly terminus: HealthCheckService,
    private readonly database: DatabaseIndicator,
    private readonly logDatabase: LogDatabaseIndicator,
    private readonly notificationDatabase: NotificationDatabaseIndicator,
    private readonly redis: RedisIndicator,
    private readonly cache: CacheIndicator,
    private readonly queue: MessageQueueIndicator,
    private readonly smsServer: SmsServerIndicator,
    private readonly clientServer: ClientServerIndicator,
    private readonly stats: ProcessStats,
    private readonly lifecycle: LifecycleState,
  ) {}

  basic() {
    return {
      status: 'ok',
      service: this.config.serviceName,
      environment: this.config.env,
      version: this.config.version,
      timestamp: new Date().toISOString(),
      uptime: humanDuration(this.stats.uptimeSeconds()),
    };
  }

  /** 200 while the process serves: nothing here depends on another system. */
  live() {
    return liveBody(this.config.serviceName, this.stats);
  }

  /** Runs the checks in parallel (each bounded by its own timeout); never throws. */
  private async run(checks: HealthIndicatorFunction[]): Promise<HealthCheckResult> {
    try {
      return await this.terminus.check(checks);
    } catch (err) {
      const body = (err as { getResponse?: () => unknown }).getResponse?.();
      if (body && typeof body === 'object' && 'status' in body) return body as HealthCheckResult;
      throw err;
    }
  }

  /** The three databases and Redis: what the API cannot serve without. */
  dependencies(): Promise<HealthCheckResult> {
    return this.run([
      () => this.database.check(),
      () => this.logDatabase.check(),
      () => this.notificationDatabase.check(),
      () => this.redis.check(),
    ]);
  }

  async ready(): Promise<{ httpStatus: number; body: Record<string, unknown> }> {
    const result = await this.dependencies();
    // Not result.status: Terminus reports 'shutting_down' once shutdown began, whatever the checks said.
    const depsOk = Object.keys(result.error ?? {}).length === 0;
    const ready = depsOk && this.lifecycle.accepting;
    const failed = Object.entries(result.error ?? {}).map(([name, v]) => ({
      name,
      message: (v as { message?: string }).message,
    }));
    return {
      httpStatus: ready ? 200 : 503,
      body: {
        status: ready ? 'ready' : 'not_ready',
        dependencies_ready: depsOk,
        service: this.config.serviceName,
        timestamp: new Date().toISOString(),
        ...(this.lifecycle.shuttingDown ? { shutting_down: true } : {}),
        ...(failed.length ? { failed } : {}),
      },
    };
  }

  /**
   * The last answer while it is younger than HEALTH_DETAILED_CACHE_MS, else a new one (shared by
   * every caller while it runs): the checks open connections to every provider, so a flood of
   * requests must not become a flood of probes.
   */
  detailed(): Promise<Answer> {
    const ttl = this.config.healthDetailedCacheMs;
    if (this.lastDetailed && this.lastDetailed.until > Date.now()) return this.lastDetailed.answer;
    const answer = this.detailedFlight.run(async () => {
      const fresh = await this.checkDetailed();
      if (ttl > 0) this.lastDetailed = { answer: Promise.resolve(fresh), until: Date.now() + ttl };
      return fresh;
    });
    return answer;
  }

  /** 503 and `unhealthy` when any check fails, that member naming the cause. */
  private async checkDetailed(): Promise<Answer> {
    const result = await this.run([
      () => this.cache.check(),
      () => this.database.check(),
      () => this.logDatabase.check(),
      () => this.notificationDatabase.check(),
      () => this.queue.check(),
      () => this.smsServer.check(),
      () => this.clientServer.check(),
    ]);
    const d = (result.details ?? {}) as Record<string, Record<string, unknown>>;
    const sms = member(d.sms_server, 'SMS provider check did not run');
    const client = member(d.client_server, 'e-mail/chat provider check did not run');
    const externalOk = sms.status === 'healthy' && client.status === 'healthy';
    const failedExternal = [
      sms.status === 'healthy' ? '' : 'sms_server',
      client.status === 'healthy' ? '' : 'client_server',
    ].filter(Boolean);
    const checks = {
      cache: member(d.cache, 'cache check did not run'),
      database: member(d.database, 'database check did not run'),
      log_database: member(d.log_database, 'log database check did not run'),
      notification_database: member(d.notification_database, 'notification database check did not run'),
      message_queue: member(d.message_queue, 'message queue check did not run'),
      external_services: {
        status: externalOk ? 'healthy' : 'unhealthy',
        message: externalOk ? 'all providers answer' : `provider check failed: ${failedExternal.join(', ')}`,
        client_server: client,
        sms_server: sms,
      },
    };
    const healthy = Object.values(checks).every((c) => c.status === 'healthy');
    const seconds = this.stats.uptimeSeconds();
    return {
      httpStatus: healthy ? 200 : 503,
      body: {
        status: healthy ? 'healthy' : 'unhealthy',
        service: this.config.serviceName,
        environment: this.config.env,
        version: this.config.version,
        timestamp: new Date().toISOString(),
        uptime: { human_readable: humanDuration(seconds), seconds },
        checks,
      },
    };
  }
}
