import { Inject, Injectable } from '@nestjs/common';
import { HealthCheckService, type HealthCheckResult } from '@nestjs/terminus';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { DatabaseIndicators, RedisIndicator } from './dependency.indicators.js';
import { LifecycleState } from './lifecycle.state.js';
import { humanDuration } from './probes.js';
import { ProcessStats } from './process-stats.js';

/** Builds the answers of spec §4.1–4.4 from Terminus checks. */
@Injectable()
export class HealthService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly terminus: HealthCheckService,
    private readonly dbs: DatabaseIndicators,
    private readonly redis: RedisIndicator,
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

  live() {
    return {
      status: 'alive',
      service: this.config.serviceName,
      timestamp: new Date().toISOString(),
      cpu_usage_percent: this.stats.cpuPercent(),
      memory_usage_mb: this.stats.memoryMb(),
      pid: String(process.pid),
    };
  }

  /** Runs every dependency check; never throws. */
  async dependencies(): Promise<HealthCheckResult> {
    try {
      return await this.terminus.check([
        () => this.dbs.database(),
        () => this.dbs.logDatabase(),
        () => this.dbs.notificationDatabase(),
        () => this.redis.check(),
      ]);
    } catch (err) {
      const body = (err as { getResponse?: () => unknown }).getResponse?.();
      if (body && typeof body === 'object' && 'status' in body) return body as HealthCheckResult;
      throw err;
    }
  }

  async ready(): Promise<{ httpStatus: number; body: Record<string, unknown> }> {
    const result = await this.dependencies();
    const depsOk = result.status === 'ok';
    const ready = depsOk && this.lifecycle.accepting;
    const failed = Object.entries(result.error ?? {}).map(([name, v]) => ({ name, message: (v as { message?: string }).message }));
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
}
