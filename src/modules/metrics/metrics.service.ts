import { Inject, Injectable } from '@nestjs/common';
import type { Queue } from 'bull';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { CacheStats } from './cache-stats.service.js';
import { registerHaCounters } from './ha-metrics.js';

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'paused', 'failed'] as const;
const TOTAL_NAMED_GAUGES = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];
export const QUEUE_GAUGE = 'bulk_queue_jobs';
/** A scrape must not hang on a Redis that does not answer. */
const QUEUE_SCRAPE_TIMEOUT_MS = 500;

export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('timeout')), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e) => (clearTimeout(t), reject(e)),
    );
  });
}

/**
 * The Prometheus metrics of one application instance, in a registry of its own (not
 * prom-client's global one), so several apps in one process (tests) do not clash and default
 * process metrics are registered once per registry. It holds the metrics of the process, of no
 * feature: HTTP, the process itself, queue depths, the API-key cache and HA; queue depths and
 * cache counters are read when scraped. Each feature declares its own metrics on this registry
 * in its `<feature>.metrics.ts` provider.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  private readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, matched route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  private readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the request arriving to the response finishing, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  /** The queues the depth gauge reads; handed over by whoever registers them (watchQueues). */
  private queueList: Queue[] = [];

  constructor(@Inject(CacheStats) private readonly cacheStats: CacheStats) {
    collectDefaultMetrics({ register: this.registry });
    // Gauges named *_total break the Prometheus naming rule (promtool check metrics fails on
    // them); each is the sum of its labelled sibling (nodejs_active_handles{type} and so on).
    for (const name of TOTAL_NAMED_GAUGES) this.registry.removeSingleMetric(name);
    const queues = () => this.queueList;
    new Gauge({
      name: QUEUE_GAUGE,
      help: 'Jobs in each Bull queue by state, read from Redis at scrape time (a dispatch job carries up to 200 messages); served by API processes only, every one reading the same Redis: aggregate with max, not sum',
      labelNames: ['queue', 'state'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        await Promise.all(
          queues().map(async (q) => {
            if (q.client.status !== 'ready') return;
            const counts = await withTimeout(q.getJobCounts(), QUEUE_SCRAPE_TIMEOUT_MS).catch(
              () => undefined,
            );
            if (!counts) return;
            for (const state of QUEUE_STATES)
              this.set({ queue: q.name, state }, (counts as unknown as Record<string, number>)[state] ?? 0);
          }),
        );
      },
    });
    const stats = this.cacheStats;
    new Counter({
      name: 'bulk_api_key_cache_lookups_total',
      help: 'API-key cache lookups in this process, by result (hit, miss)',
      labelNames: ['result'] as const,
      registers: [this.registry],
      collect() {
        const { hits, misses } = stats.snapshot();
        this.reset();
        this.inc({ result: 'hit' }, hits);
        this.inc({ result: 'miss' }, misses);
      },
    });
    registerHaCounters(this.registry);
  }

  /** A counter on this process's registry, declared by the feature that counts (its `*.metrics.ts`). */
  counter<L extends string>(config: { name: string; help: string; labelNames: readonly L[] }): Counter<L> {
    return new Counter({ ...config, registers: [this.registry] });
  }

  observeHttp(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  /** The Bull queues whose depths the `bulk_queue_jobs` gauge reports. */
  watchQueues(queues: Queue[]): void {
    this.queueList = queues;
  }

  /**
   * For worker processes: the queue depths are the same Redis read from every process, so only
   * API processes serve them, and a dashboard has one kind of process to aggregate.
   */
  withoutQueueGauges(): void {
    this.registry.removeSingleMetric(QUEUE_GAUGE);
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
