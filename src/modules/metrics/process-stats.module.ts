import { Module } from '@nestjs/common';
import { ProcessStats } from './process-stats.service.js';

/** CPU and memory figures of this process, for the health report and the worker's listener. */
@Module({
  providers: [ProcessStats],
  exports: [ProcessStats],
})
export class ProcessStatsModule {}
