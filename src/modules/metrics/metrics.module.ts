import { Module } from '@nestjs/common';
import { CacheStatsModule } from './cache-stats.js';
import { MetricsController } from './metrics.controller.js';
import { MetricsService } from './metrics.service.js';

/** Counters and gauges of this process, served on /metrics (or by the worker's own listener). */
@Module({
  imports: [CacheStatsModule],
  controllers: [MetricsController],
  providers: [MetricsService],
  exports: [MetricsService],
})
export class MetricsModule {}
