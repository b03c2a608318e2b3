import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { DatabaseIndicators, RedisIndicator } from './dependency.indicators.js';
import { HealthController } from './health.controller.js';
import { HealthService } from './health.service.js';
import { LifecycleState } from './lifecycle.state.js';
import { ProcessStats } from './process-stats.js';

@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController],
  providers: [HealthService, DatabaseIndicators, RedisIndicator, ProcessStats, LifecycleState],
  exports: [LifecycleState],
})
export class HealthModule {}
