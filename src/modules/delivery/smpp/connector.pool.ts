import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../../config/config.js';
import { REDIS } from '../../../platform/redis/redis.module.js';
import { RepeatLimiter } from '../../../platform/logging/repeat-limiter.js';
import { PeriodicTask } from '../../../platform/periodic/periodic-task.js';
import { MetricsService } from '../../metrics/metrics.service.js';
import { SmppTransport } from './smpp.transport.js';
import type { InboundHandler, ReportHandler, TransportResult } from '../transports/transport.js';
import { ConnectorStore } from './connector.store.js';
import { ConnectorMetrics } from './connector-metrics.js';
import { DEFAULT_CONNECTOR, type ConnectorRow } from './routing-table.js';
import { RoutingService } from './routing.service.js';
import { SharedThroughput } from './shared-throughput.js';

/** How often a worker re-reads the connectors (changes apply within this, well inside 5 s) and reports its binds. */
export const CONNECTOR_REFRESH_MS = 2000;
/** Rows older than this in connector_state belong to workers that stopped without saying so. */
export const STATE_FRESH_MS = 3 * CONNECTOR_REFRESH_MS;
/** This many hand-overs in a row that failed for a transient reason take a connector out of rotation ... */
const FAILURES_TO_SKIP = 3;
/** ... for this long, when another connector on the prefix can take its messages. */
const SKIP_MS = 30_000;

export interface Connector {
  name: string;
  transport: SmppTransport;
  throughput: SharedThroughput;
  /** What the bind was built from: a change of any of it opens a new bind. */
  signature: string;
  sent: number;
  failuresInARow: number;
  skipUntil: number;
  /** The latest trouble seen on this link, kept after it heals so an operator can see what happened. */
  lastError: { message: string; at: Date } | null;
}

function signatureOf(c: Pick<ConnectorRow, 'url' | 'window_size' | 'bind_mode' | 'system_type'>): string {
  return JSON.stringify([c.url, c.window_size, c.bind_mode, c.system_type ?? '']);
}

/**
 * This worker's binds, one per enabled connector (and SMPP_URL as the default connector),
 * kept in step with the connectors table: a new connector is bound within CONNECTOR_REFRESH_MS,
 * a disabled or removed one closed, a changed one bound again (a TPS change applies in place).
 * Every CONNECTOR_REFRESH_MS it also writes what its binds are doing to connector_state, which
 * `connectors list` adds up over the live workers.
 */
@Injectable()
export class ConnectorPool implements OnApplicationShutdown {
  private readonly logger = new Logger('Connectors');
  private readonly warnings = new RepeatLimiter(this.logger);
  private readonly links = new Map<string, Connector>();
  private readonly worker = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  readonly metrics: ConnectorMetrics;
  private reportHandler: ReportHandler | null = null;
  private inboundHandler: InboundHandler | null = null;
  private readonly refresh = new PeriodicTask({
    run: () => this.tick(),
    everyMs: CONNECTOR_REFRESH_MS,
    logger: this.logger,
    warnings: this.warnings,
    failure: 'connectors not refreshed',
  });
  private started = false;
  private syncing: Promise<void> | null = null;
  private lastSyncAt = 0;
  private lastReportAt = Date.now();
  private stopped = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly routing: RoutingService,
    private readonly store: ConnectorStore,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(MetricsService) metrics: MetricsService,
  ) {
    this.metrics = new ConnectorMetrics(metrics.registry, { gauges: () => this.gauges() });
  }

  /** Binds now and keeps the binds in step with the table; idempotent. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    void this.sync();
    this.refresh.start();
  }

  onReport(handler: ReportHandler): void {
    this.reportHandler = handler;
    for (const c of this.links.values()) c.transport.onReport(handler);
  }

  onInbound(handler: InboundHandler): void {
    this.inboundHandler = handler;
    for (const c of this.links.values()) c.transport.onInbound(handler);
  }

  get(name: string): Connector | undefined {
    return this.links.get(name);
  }

  all(): Connector[] {
    return [...this.links.values()];
  }

  /** Bound and not taken out of rotation for failing. */
  usable(name: string): boolean {
    const c = this.links.get(name);
    return !!c && c.transport.bound && Date.now() >= c.skipUntil;
  }

  /** Reads the table again now unless that was done within the last second (an unknown connector was named). */
  async syncSoon(): Promise<void> {
    if (Date.now() - this.lastSyncAt < 1000 && !this.syncing) return;
    await this.sync();
  }

  /** Counts a hand-over's outcomes against the connector. */
  note(c: Connector, results: TransportResult[]): void {
    let sent = 0;
    let rejected = 0;
    let failed = 0;
    for (const r of results) {
      if (r.kind === 'accepted') sent++;
      else if (r.kind === 'permanent') rejected++;
      else failed++;
    }
    c.sent += sent;
    // A hand-over that failed is trouble on the link; a message refused for good is the message's own.
    const failure = results.find((r) => r.kind === 'transient');
    if (failure?.kind === 'transient') c.lastError = { message: failure.reason, at: new Date() };
    this.metrics.count(c.name, 'sent', sent);
    this.metrics.count(c.name, 'rejected', rejected);
    this.metrics.count(c.name, 'failed', failed);
    if (sent > 0 || rejected > 0) c.failuresInARow = 0;
    else if (failed > 0 && ++c.failuresInARow >= FAILURES_TO_SKIP) {
      c.skipUntil = Date.now() + SKIP_MS;
      this.warnings.warn(
        `connector ${c.name}: ${c.failuresInARow} hand-overs in a row failed; others on its prefixes go first for ${SKIP_MS / 1000} s`,
        `skip-${c.name}`,
      );
    }
  }

  private async tick(): Promise<void> {
    await this.sync();
    await this.report().catch((err: Error) =>
      this.warnings.warn(`connector state not reported: ${err.message}`, 'state'),
    );
  }

  sync(): Promise<void> {
    this.syncing ??= this.syncOnce()
      .catch((err: Error) => this.warnings.warn(`connectors not re-read: ${err.message}`, 'sync'))
      .finally(() => {
        this.lastSyncAt = Date.now();
        this.syncing = null;
      });
    return this.syncing;
  }

  private async syncOnce(): Promise<void> {
    const table = await this.routing.refresh();
    if (this.stopped) return;
    const wanted = new Map<string, Omit<ConnectorRow, 'id' | 'enabled'>>();
    if (table.defaultConnector && this.config.smppUrl) {
      wanted.set(DEFAULT_CONNECTOR, {
        name: DEFAULT_CONNECTOR,
        url: this.config.smppUrl,
        tps: this.config.smppTps,
        window_size: this.config.smppWindow,
        bind_mode: 'transceiver',
        system_type: null,
      });
    }
    for (const c of table.connectors) if (c.enabled && Number(c.enabled) !== 0) wanted.set(c.name, c);
    for (const [name, c] of this.links) {
      const want = wanted.get(name);
      if (!want || signatureOf(want) !== c.signature) {
        this.links.delete(name);
        this.logger.log(
          `connector ${name}: ${want ? 'changed, binding again' : 'disabled or removed, unbinding'}`,
        );
        c.throughput.close();
        void c.transport.close().catch(() => undefined);
      } else if (c.throughput.tps !== want.tps) {
        c.throughput.setTps(want.tps);
        this.logger.log(`connector ${name}: ${want.tps || 'unlimited'} TPS`);
      }
    }
    for (const [name, row] of wanted) if (!this.links.has(name)) this.open(row);
  }

  private open(row: Omit<ConnectorRow, 'id' | 'enabled'>): void {
    const throughput = new SharedThroughput({
      redis: this.redis,
      keyPrefix: `${this.config.queuePrefix}:connector-tps`,
      connector: row.name,
      tps: row.tps,
      onRedisError: (err) =>
        this.warnings.warn(`connector ${row.name}: TPS counted locally, Redis failed: ${err.message}`, 'tps'),
    });
    const connector: Connector = {
      name: row.name,
      throughput,
      signature: signatureOf(row),
      sent: 0,
      failuresInARow: 0,
      skipUntil: 0,
      lastError: null,
      transport: new SmppTransport({
        connector: row.name,
        url: row.url,
        tps: 0,
        throughput,
        window: row.window_size,
        bindMode: row.bind_mode,
        systemType: row.system_type ?? undefined,
        responseTimeoutMs: this.config.smppResponseTimeoutMs,
        lateResponseWaitMs: this.config.smppLateResponseWaitMs,
        // Throttling slows the connector down and never fails a message: retried until the bind closes.
        throttleRetries: Infinity,
        throttleBackoffMaxMs: 2000,
        onThrottled: () => {
          throughput.throttled();
          this.metrics.count(row.name, 'throttled');
        },
        logger: {
          log: (m: string) => this.logger.log(`[${row.name}] ${m}`),
          warn: (m: string) => this.logger.warn(`[${row.name}] ${m}`),
        },
      }),
    };
    if (this.reportHandler) connector.transport.onReport(this.reportHandler);
    if (this.inboundHandler) connector.transport.onInbound(this.inboundHandler);
    this.links.set(row.name, connector);
    // Bound when the worker starts, not at the first message.
    connector.transport.connect().catch(() => undefined);
  }

  private gauges() {
    return this.all().map((c) => ({
      connector: c.name,
      bound: c.transport.bound,
      inFlight: c.transport.load.inFlight,
      queued: c.transport.load.queued + c.throughput.queued,
    }));
  }

  private async report(): Promise<void> {
    const now = Date.now();
    const seconds = Math.max(0.001, (now - this.lastReportAt) / 1000);
    this.lastReportAt = now;
    const states = this.gauges().map((g) => {
      const c = this.links.get(g.connector)!;
      const sentPerSecond = c.sent / seconds;
      c.sent = 0;
      const bindError = c.transport.bindError;
      if (bindError) c.lastError = { message: bindError, at: new Date(now) };
      return { ...g, sentPerSecond, lastError: c.lastError };
    });
    await this.store.reportState(this.worker, states);
  }

  async onApplicationShutdown(): Promise<void> {
    const started = this.started;
    this.stopped = true;
    if (!started) return;
    await this.refresh.stop();
    await this.syncing;
    const links = this.all();
    this.links.clear();
    for (const c of links) c.throughput.close();
    await Promise.all(links.map((c) => c.transport.close().catch(() => undefined)));
    await this.store.clearState(this.worker).catch(() => undefined);
  }
}
