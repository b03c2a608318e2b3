import { Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller.js';
import { MetricsModule } from './metrics.module.js';

/** /metrics on the API's port (a worker serves it on its own listener, metrics-server.module.ts). */
@Module({
  imports: [MetricsModule],
  controllers: [MetricsController],
})
export class MetricsHttpModule {}
