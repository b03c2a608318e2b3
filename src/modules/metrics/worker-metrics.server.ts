import { createServer, type Server } from 'node:http';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { classifyError } from '../../platform/errors/classify-error.js';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { ProcessStats, liveBody } from './process-stats.service.js';
import { checkMetricsToken } from './metrics-token.js';
import { MetricsService } from './metrics.service.js';

/**
 * The worker has no HTTP API, but what it does (SENT, DELIVERED, dispatch latency, callback
 * attempts) is counted in its own process. With METRICS_PORT set, this serves that process's
 * GET /metrics (same METRICS_TOKEN rule as the API) and GET /health/live on that port;
 * without it the worker listens on nothing.
 */
@Injectable()
export class WorkerMetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server?: Server;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: MetricsService,
    private readonly stats: ProcessStats,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.metrics.withoutQueueGauges();
    const port = this.config.metricsPort;
    if (!port) return;
    this.server = createServer((req, res) => {
      void (async () => {
        const path = (req.url ?? '/').split('?')[0];
        if (req.method === 'GET' && path === '/health/live') {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify(liveBody(`${this.config.serviceName}-worker`, this.stats)));
          return;
        }
        if (req.method !== 'GET' || path !== '/metrics') {
          res.writeHead(404, { 'Content-Type': 'application/json' });
          res.end(
            JSON.stringify({
              success: false,
              message: 'No such route or resource.',
              error: { code: 'NOT_FOUND', details: [] },
              request_id: '',
            }),
          );
          return;
        }
        try {
          checkMetricsToken(this.config.metricsToken, req);
          const { contentType, body } = await this.metrics.render();
          res.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
          res.end(body);
        } catch (err) {
          const c = classifyError(err);
          res.writeHead(c.status, { 'Content-Type': 'application/json', ...c.headers });
          res.end(
            JSON.stringify({
              success: false,
              message: c.message,
              error: { code: c.code, details: c.details },
              request_id: '',
            }),
          );
        }
      })();
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, () => resolve());
    });
    this.logger.log(`worker metrics on :${port}/metrics`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}
