import { Module } from '@nestjs/common';
import { ProviderFaults } from '../modules/delivery/provider-faults.js';
import { TransportRegistry } from '../modules/delivery/transport.registry.js';
import { IN_PROCESS_DISPATCH, type InProcessDispatch } from '../modules/health/health.tokens.js';
import { WorkerModule } from './worker.module.js';

/** For an API that runs the dispatch workers itself (RUN_WORKERS=true): health asks the providers through them. */
@Module({
  imports: [WorkerModule],
  providers: [
    {
      provide: IN_PROCESS_DISPATCH,
      inject: [TransportRegistry, ProviderFaults],
      useFactory: (registry: TransportRegistry, faults: ProviderFaults): InProcessDispatch => ({
        registry,
        faults,
      }),
    },
  ],
  exports: [IN_PROCESS_DISPATCH],
})
export class WorkersInProcessModule {}

/** For an API-only process: the health probes reach the providers on their own. */
@Module({
  providers: [{ provide: IN_PROCESS_DISPATCH, useValue: null }],
  exports: [IN_PROCESS_DISPATCH],
})
export class NoWorkersInProcessModule {}
