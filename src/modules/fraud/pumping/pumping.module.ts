import { Module } from '@nestjs/common';
import { RedisModule } from '../../../platform/redis/redis.module.js';
import { MetricsModule } from '../../metrics/metrics.module.js';
import { PumpingMetrics } from './pumping.metrics.js';
import { PumpingState } from './pumping-state.service.js';
import { PumpingStore } from './pumping.store.js';
import { PumpingGuard } from './pumping.guard.js';

/** The traffic-pumping guard of verification codes and auto-replies, its settings and its state. */
@Module({
  imports: [MetricsModule, RedisModule],
  providers: [PumpingStore, PumpingState, PumpingMetrics, PumpingGuard],
  exports: [PumpingGuard, PumpingStore, PumpingState],
})
export class PumpingModule {}
