import { Module } from '@nestjs/common';
import { MetricsModule } from './metrics.module.js';
import { ProcessStatsModule } from './process-stats.module.js';
import { WorkerMetricsServer } from './worker-metrics.server.js';

/** A worker's own /metrics (and liveness) listener, when METRICS_PORT is set. */
@Module({
  imports: [MetricsModule, ProcessStatsModule],
  providers: [WorkerMetricsServer],
})
export class MetricsServerModule {}
