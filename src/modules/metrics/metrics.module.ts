import { Module } from '@nestjs/common';
import { CacheStatsModule } from './cache-stats.service.js';
import { MetricsService } from './metrics.service.js';

/** Counters and gauges of this process (served by metrics-http.module.ts or the worker's listener). */
@Module({
  imports: [CacheStatsModule],
  providers: [MetricsService],
  exports: [MetricsService],
})
export class MetricsModule {}
