import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { PeriodicTask } from '../../platform/periodic/periodic-task.js';

const SAMPLE_MS = 5000;

/** CPU use over the last sampling interval (not since start), as a percentage of one core. */
@Injectable()
export class ProcessStats implements OnModuleInit, OnModuleDestroy {
  readonly startedAt = Date.now();
  private last = { at: performance.now(), cpu: process.cpuUsage() };
  private percent = 0;
  private readonly sampler = new PeriodicTask({
    run: () => this.sample(),
    everyMs: SAMPLE_MS,
    logger: new Logger('ProcessStats'),
    failure: 'CPU not sampled',
  });

  onModuleInit(): void {
    this.sampler.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.sampler.stop();
  }

  private sample(): void {
    const now = performance.now();
    const cpu = process.cpuUsage();
    const usedMicros = cpu.user - this.last.cpu.user + (cpu.system - this.last.cpu.system);
    const elapsedMicros = (now - this.last.at) * 1000;
    this.percent = elapsedMicros > 0 ? (usedMicros / elapsedMicros) * 100 : 0;
    this.last = { at: now, cpu };
  }

  cpuPercent(): number {
    // Before the first full interval, measure what has passed so far.
    if (performance.now() - this.last.at >= SAMPLE_MS || this.percent === 0) this.sample();
    return Math.round(this.percent * 100) / 100;
  }

  memoryMb(): number {
    return Math.round((process.memoryUsage.rss() / 1048576) * 100) / 100;
  }

  uptimeSeconds(): number {
    return Math.floor((Date.now() - this.startedAt) / 1000);
  }
}

/** The /health/live body, the same in the API and in a worker's metrics listener. */
export function liveBody(service: string, stats: ProcessStats) {
  return {
    status: 'alive',
    service,
    timestamp: new Date().toISOString(),
    cpu_usage_percent: stats.cpuPercent(),
    memory_usage_mb: stats.memoryMb(),
    pid: String(process.pid),
  };
}
